import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient, UpstreamError } from '../../src/api/index.js';
import { loadTlsMaterial, type TlsMaterial } from '../../src/sandbox/tls/certificates.js';
import { recordingSleep, silentLogger } from './client-fixtures.js';
import { BALANCE_BODY, failureOf } from './scripted-upstream.js';

const DAY_MS = 86_400_000;

/** The failure of one balance read from `baseUrl` trusting `ca`, with 2 attempts at most. */
async function failure(baseUrl: string, ca: string | undefined) {
  const recorder = recordingSleep();
  const client = new CardIssuingClient({
    baseUrl,
    apiKey: 'connection-key',
    ...(ca === undefined ? {} : { ca }),
    retry: { maxAttempts: 2 },
    timeouts: { connectMs: 5_000 },
    sleep: recorder.sleep,
    logger: silentLogger,
  });
  try {
    const error = await failureOf(client.getMerchantBalance());
    expect(error).toBeInstanceOf(UpstreamError);
    return { error: error as UpstreamError, waits: recorder.waits };
  } finally {
    await client.close();
  }
}

/** An HTTPS server with this identity on `host`, port 0, answering a valid balance. */
async function serve(tls: TlsMaterial, host: string): Promise<{ server: Server; url: string }> {
  const server = createServer({ cert: tls.certPem, key: tls.keyPem }, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(BALANCE_BODY);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, url: `https://${host}:${(server.address() as AddressInfo).port}` };
}

async function stop(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

describe('CardIssuingClient: an upstream it cannot reach or trust names the base URL', () => {
  let dir: string;
  let current: TlsMaterial;
  let other: TlsMaterial;
  let expired: TlsMaterial;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-connection-'));
    current = await loadTlsMaterial(join(dir, 'current'), false);
    other = await loadTlsMaterial(join(dir, 'other'), false);
    // Issued 400 days ago: its 90 days are long over (its CA's year too).
    expired = await loadTlsMaterial(
      join(dir, 'expired'),
      false,
      new Date(Date.now() - 400 * DAY_MS),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a refused connection: retried, then UPSTREAM_UNAVAILABLE saying refused and where', async () => {
    const { server, url } = await serve(current, '127.0.0.1');
    await stop(server);
    const { error, waits } = await failure(url, current.caPem);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', attempts: 2 });
    expect(error.message).toContain(`${url}`);
    expect(error.message).toContain('refused');
    expect(waits).toHaveLength(1);
  });

  it('a host name that does not resolve: UPSTREAM_UNAVAILABLE saying so, and where', async () => {
    const { error } = await failure('https://cardsync-no-such-host.invalid/v1', current.caPem);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(error.message).toContain('https://cardsync-no-such-host.invalid/v1');
    expect(error.message).toMatch(/ENOTFOUND|EAI_AGAIN/);
    expect(error.message).toContain('resolve');
  });

  it('a certificate of another CA, an expired one, one for another host: not retried, each saying which, and where', async () => {
    const cases = [
      { tls: current, host: '127.0.0.1', ca: other.caPem, says: /not signed by a trusted CA/ },
      { tls: expired, host: '127.0.0.1', ca: expired.caPem, says: /expired/ },
      // The certificate names localhost, 127.0.0.1 and ::1; 127.0.0.2 is loopback too.
      { tls: current, host: '127.0.0.2', ca: current.caPem, says: /another host/ },
    ];
    for (const { tls, host, ca, says } of cases) {
      const { server, url } = await serve(tls, host);
      try {
        const { error, waits } = await failure(url, ca);
        expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', attempts: 1 });
        expect(error.message).toContain(url);
        expect(error.message).toMatch(says);
        expect(error.message).not.toContain('connection-key');
        expect(waits).toEqual([]);
      } finally {
        await stop(server);
      }
    }
  });

  it('a server that hangs up once TLS is set up: retried, then UPSTREAM_UNAVAILABLE saying where', async () => {
    const { server, url } = await serve(current, '127.0.0.1');
    server.on('secureConnection', (socket) => socket.end());
    try {
      const { error, waits } = await failure(url, current.caPem);
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', attempts: 2 });
      expect(error.message).toContain(url);
      expect(waits).toHaveLength(1);
    } finally {
      await stop(server);
    }
  });
});
