import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
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
