import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { loadTlsMaterial } from '../../src/sandbox/tls/certificates.js';

/** What the relay does to an answer's body text: the text to send on instead. */
export type Rewrite = (path: string, body: string) => string;

/**
 * An HTTPS relay on 127.0.0.1, port 0, with a throwaway CA, in front of the sandbox: every
 * request is sent on to it (TLS verified with its CA) and its answer sent back, the body text
 * passed through `rewrite` first. For what the sandbox never sends, as raw bytes on the wire (a
 * number written as the upstream wrote it, which no parsed value can stand for).
 */
export interface RewritingRelay {
  readonly baseUrl: string;
  readonly caPem: string;
  close(): Promise<void>;
}

/** Start a {@link RewritingRelay} to `target` (an https:// origin trusting `targetCaPem`). */
export async function startRewritingRelay(
  target: string,
  targetCaPem: string,
  rewrite: Rewrite,
): Promise<RewritingRelay> {
  const dir = await mkdtemp(join(tmpdir(), 'cardsync-relay-'));
  const tls = await loadTlsMaterial(dir, false);
  const upstream = new Agent({ connect: { ca: targetCaPem } });
  const server: Server = createServer({ cert: tls.certPem, key: tls.keyPem }, (req, res) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && name !== 'host' && name !== 'accept-encoding')
        headers[name] = value;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = chunks.length === 0 ? undefined : Buffer.concat(chunks);
      request(`${target}${req.url ?? '/'}`, {
        dispatcher: upstream,
        method: req.method as 'GET' | 'POST',
        headers,
        body,
      })
        .then(async (answer) => {
          const text = rewrite(new URL(req.url ?? '/', target).pathname, await answer.body.text());
          const out: Record<string, string> = {};
          for (const [name, value] of Object.entries(answer.headers)) {
            if (typeof value === 'string' && name !== 'content-length' && name !== 'connection')
              out[name] = value;
          }
          res.writeHead(answer.statusCode, out);
          res.end(text);
        })
        .catch((error: unknown) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(String(error));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    baseUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caPem: tls.caPem,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await upstream.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
