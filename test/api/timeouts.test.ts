import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient, UpstreamError } from '../../src/api/index.js';
import { loadTlsMaterial } from '../../src/sandbox/tls/certificates.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { sandboxClient, setFaults } from './client-fixtures.js';

// undici checks headers and body timeouts on a coarse timer (about half a second), so a 200 ms
// headersMs fires somewhere between 0.2 and 1 s: the injected latency is well above that.
describe('CardIssuingClient: timeouts', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-timeouts' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('retries a response slower than headersMs, and gives up with UPSTREAM_TIMEOUT', async () => {
    const { client } = sandboxClient(t, {
      timeouts: { headersMs: 200 },
      retry: { maxAttempts: 2 },
    });
    try {
      setFaults(t, [{ kind: 'latency', ms: 1_500, times: 1 }]);
      expect((await client.getMerchantBalance()).currency).toBe('USD');
      expect(client.stats()).toMatchObject({ requests: 2, retries: 1 });
      setFaults(t, [{ kind: 'latency', ms: 1_500 }]);
      const error = await client.getMerchantBalance().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', attempts: 2, status: undefined });
      expect(((error as Error).cause as { code?: string }).code).toBe('UND_ERR_HEADERS_TIMEOUT');
    } finally {
      setFaults(t, []);
      await client.close();
    }
  });
});

describe('CardIssuingClient: a body that trickles in', () => {
  let dir: string;
  let server: Server;
  let baseUrl: string;
  let caPem: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-trickle-'));
    const tls = await loadTlsMaterial(dir, false);
    caPem = tls.caPem;
    // A 200 whose body never stays silent for long, and never ends: one byte every 100 ms.
    server = createServer({ cert: tls.certPem, key: tls.keyPem }, (request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '4096' });
      response.write('{"data":');
      const drip = setInterval(() => response.write(' '), 100);
      request.socket.once('close', () => clearInterval(drip));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  it('gives up on a body still arriving after bodyTotalMs, though never silent for bodyMs: UPSTREAM_TIMEOUT', async () => {
    const client = new CardIssuingClient({
      baseUrl,
      apiKey: 'k',
      ca: caPem,
      timeouts: { bodyMs: 1_000, bodyTotalMs: 1_500 },
      retry: { maxAttempts: 1 },
    });
    try {
      const outcome = await Promise.race([
        client.getMerchantBalance().then(
          () => 'answered',
          (e: unknown) => e,
        ),
        delay(6_000, 'still reading after 6 s'),
      ]);
      expect(outcome).toBeInstanceOf(UpstreamError);
      expect(outcome).toMatchObject({ code: 'UPSTREAM_TIMEOUT', attempts: 1, status: 200 });
      expect(((outcome as Error).cause as { code?: string }).code).toBe('UND_ERR_BODY_TIMEOUT');
    } finally {
      server.closeAllConnections();
      await client.close();
    }
  });
});
