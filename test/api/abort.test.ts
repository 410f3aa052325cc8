import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { sandboxClient, setFaults } from './client-fixtures.js';

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

// Each wait here is far longer than the test timeout: the test passes only if abort ends it.
describe('CardIssuingClient: the AbortSignal', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-abort' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends nothing with a signal already aborted', async () => {
    const { client } = sandboxClient(t);
    try {
      const error = await failure(client.listCards({}, { signal: AbortSignal.abort() }));
      expect(error).toMatchObject({ code: 'UPSTREAM_ABORTED', attempts: 0 });
      expect(client.stats().requests).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('ends a request waiting for its answer', async () => {
    const { client } = sandboxClient(t);
    try {
      setFaults(t, [{ kind: 'latency', ms: 60_000, times: 1 }]);
      const error = await failure(client.getMerchantBalance({ signal: AbortSignal.timeout(100) }));
      expect(error).toMatchObject({ code: 'UPSTREAM_ABORTED', attempts: 1 });
    } finally {
      setFaults(t, []);
      await client.close();
    }
  });

  it('ends a Retry-After wait (with the real sleep)', async () => {
    const { client } = sandboxClient(t, { sleep: undefined });
    try {
      setFaults(t, [{ kind: 'rate-limit', retryAfterSeconds: 3_600, times: 1 }]);
      const error = await failure(client.listOfferings({ signal: AbortSignal.timeout(100) }));
      expect(error).toMatchObject({ code: 'UPSTREAM_ABORTED', attempts: 1 });
      expect(client.stats()).toMatchObject({ requests: 1, rateLimited: 1 });
    } finally {
      setFaults(t, []);
      await client.close();
    }
  });
});
