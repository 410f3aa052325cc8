import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { type AddressInfo, connect, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import type { SandboxOptions } from '../../src/sandbox/sandbox.js';
import { startTestSandbox, type TestSandbox } from './test-sandbox.js';

/** One CONNECT a proxy received: where to, and the credentials it carried. */
export interface ConnectSeen {
  /** `host:port` as the request line named it. */
  readonly target: string;
  /** The `proxy-authorization` header, as sent. */
  readonly authorization: string | undefined;
}

/** A real HTTP CONNECT proxy on 127.0.0.1, port 0. */
export interface EgressProxy {
  /** `http://127.0.0.1:PORT` (`https://` with `tls`), without credentials. */
  readonly url: string;
  readonly port: number;
  /** Every CONNECT received, in order. */
  readonly seen: ConnectSeen[];
  close(): Promise<void>;
}

/**
 * How the proxy answers a CONNECT: a status to refuse it with, `'hold'` to never answer (the
 * socket left open until the proxy closes), or undefined to open the tunnel.
 */
export type ConnectAnswer = (seen: ConnectSeen) => number | 'hold' | undefined;

const REASONS: Readonly<Record<number, string>> = {
  403: 'Forbidden',
  407: 'Proxy Authentication Required',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/**
 * Start a CONNECT proxy as a corporate one behaves: it resolves the target's host itself
 * (`hosts` maps a name to the address it dials, as the proxy's own DNS would), answers 200 and
 * relays bytes both ways (the client's TLS goes through untouched), or refuses as `answer` says.
 * A target it cannot dial is answered 502.
 */
export async function startEgressProxy(
  options: {
    hosts?: Readonly<Record<string, string>>;
    answer?: ConnectAnswer;
    /** Speak TLS with this identity (an `https://` proxy). */
    tls?: { cert: string; key: string };
  } = {},
): Promise<EgressProxy> {
  const seen: ConnectSeen[] = [];
  const sockets = new Set<Socket>();
  const refuse = (_request: IncomingMessage, response: import('node:http').ServerResponse) => {
    response.writeHead(405).end();
  };
  const server =
    options.tls === undefined ? createServer(refuse) : createTlsServer(options.tls, refuse);
  server.on(options.tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) => {
    const target = request.url ?? '';
    const entry = { target, authorization: request.headers['proxy-authorization'] };
    seen.push(entry);
    client.on('error', () => {});
    const refusal = options.answer?.(entry);
    if (refusal === 'hold') return;
    if (refusal !== undefined) {
      const challenge = refusal === 407 ? 'Proxy-Authenticate: Basic realm="egress"\r\n' : '';
      client.end(
        `HTTP/1.1 ${refusal} ${REASONS[refusal] ?? 'Refused'}\r\n${challenge}Content-Length: 0\r\n\r\n`,
      );
      return;
    }
    const colon = target.lastIndexOf(':');
    const host = target.slice(0, colon).replace(/^\[|\]$/g, '');
    const port = Number(target.slice(colon + 1));
    const upstream = connect(port, options.hosts?.[host] ?? host);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (client.writable && upstream.bytesRead === 0)
        client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      else client.destroy();
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    seen,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A test sandbox reachable as `https://NAME:PORT`, a name only a proxy resolves. */
export interface NamedSandbox {
  readonly t: TestSandbox;
  /** `https://NAME:PORT`. */
  readonly baseUrl: string;
  /** The name's host and the address it stands for, for {@link startEgressProxy}'s `hosts`. */
  readonly hosts: Readonly<Record<string, string>>;
  /** The CA that signed the sandbox's certificate for NAME. */
  readonly caFile: string;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/**
 * Start a test sandbox whose certificate is for `name` (a name no resolver knows: a client that
 * dials it itself fails, one that asks a proxy to is let through), from a state folder holding
 * that certificate, which the sandbox then serves instead of its own.
 */
export async function startNamedSandbox(
  name: string,
  options: Partial<SandboxOptions> = {},
): Promise<NamedSandbox> {
  const stateDir = await mkdtemp(join(tmpdir(), 'cardsync-named-upstream-'));
  const now = Date.now();
  const validity = {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY_MS),
    notAfterDate: new Date(now + 30 * DAY_MS),
  } as const;
  const ca = await generate([{ name: 'commonName', value: 'cardsync test proxy-side CA' }], {
    ...validity,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const server = await generate([{ name: 'commonName', value: name }], {
    ...validity,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: name }] },
    ],
  });
  const tls = join(stateDir, 'tls');
  await mkdir(tls, { recursive: true, mode: 0o700 });
  await writeFile(join(tls, 'ca.pem'), ca.cert);
  await writeFile(join(tls, 'server.pem'), server.cert);
  await writeFile(join(tls, 'server-key.pem'), server.private, { mode: 0o600 });
  const t = await startTestSandbox({ merchants: 1, ...options, stateDir });
  const port = new URL(t.sandbox.baseUrl).port;
  return {
    t,
    baseUrl: `https://${name}:${port}`,
    hosts: { [name]: '127.0.0.1' },
    caFile: t.sandbox.caFile,
    close: async () => {
      await t.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on: a server's, once it is closed. */
export async function deadPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
