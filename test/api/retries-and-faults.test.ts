import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { cardIds, holderFree, sandboxClient, setFaults } from './client-fixtures.js';

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('CardIssuingClient: retries against the fault lab', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-retries' });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => {
    setFaults(t, []);
  });

  it('honours Retry-After on a 429 and halves the shared limit, which then recovers with successes', async () => {
    const { client, waits } = sandboxClient(t, { concurrency: 8 });
    try {
      setFaults(t, [{ kind: 'rate-limit', retryAfterSeconds: 2, times: 1 }]);
      const balance = await client.getMerchantBalance();
      expect(balance.currency).toBe('USD');
      // One retry, waited for the 2 s the upstream asked (above the 125 ms jitter draw).
      expect(waits).toEqual([2_000]);
      // Halved from 8 to 4; the retry's success is the first of the 4 that take it to 5.
      expect(client.stats()).toEqual({
        requests: 2,
        retries: 1,
        rateLimited: 1,
        concurrencyLimit: 4,
      });
      for (let i = 0; i < 3; i++) await client.getMerchantBalance();
      expect(client.stats().concurrencyLimit).toBe(5);
      for (let i = 0; i < 5 + 6 + 7; i++) await client.getMerchantBalance();
      expect(client.stats().concurrencyLimit).toBe(8);
    } finally {
      await client.close();
    }
  });

  it('caps a Retry-After at retryAfterCapMs', async () => {
    const { client, waits } = sandboxClient(t, { retry: { retryAfterCapMs: 5_000 } });
    try {
      setFaults(t, [{ kind: 'rate-limit', retryAfterSeconds: 3_600, times: 1 }]);
      await client.listOfferings();
      expect(waits).toEqual([5_000]);
    } finally {
      await client.close();
    }
  });

  it('backs the whole client off once when concurrent workers are rate limited together', async () => {
    const { client, waits } = sandboxClient(t, { concurrency: 8 });
    try {
      // Open the pool's connections first, then hold the 8 refused calls at the upstream a moment
      // so that all of them are in before any retry arrives: one congestion event.
      await Promise.all(Array.from({ length: 8 }, () => client.listCards({ limit: 1 })));
      setFaults(t, [
        { kind: 'latency', ms: 150, times: 8 },
        { kind: 'rate-limit', retryAfterSeconds: 1, times: 8 },
      ]);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => client.listCards({ limit: 1 })),
      );
      expect(results).toHaveLength(8);
      const stats = client.stats();
      expect(stats.rateLimited).toBe(8);
      expect(stats.requests).toBe(24);
      // Halved once (8 -> 4) for the one congestion event, then 8 successes: 4 -> 5.
      expect(stats.concurrencyLimit).toBe(5);
      expect(waits.filter((ms) => ms >= 1_000).length).toBeGreaterThanOrEqual(8);
    } finally {
      await client.close();
    }
  });

  it('gives up on a 429 that never ends with UPSTREAM_RATE_LIMITED after maxAttempts', async () => {
    const { client, waits } = sandboxClient(t, { retry: { maxAttempts: 4 } });
    try {
      setFaults(t, [{ kind: 'rate-limit', retryAfterSeconds: 1 }]);
      const error = await rejection(client.getMerchantBalance());
      expect(error).toMatchObject({
        code: 'UPSTREAM_RATE_LIMITED',
        status: 429,
        attempts: 4,
        upstreamCode: 'RATE_LIMITED',
      });
      expect(waits.filter((ms) => ms === 1_000)).toHaveLength(3);
      expect(client.stats().concurrencyLimit).toBe(1);
    } finally {
      await client.close();
    }
  });

  it.each([500, 502, 503] as const)('retries a %i until the call succeeds', async (status) => {
    const { client, waits } = sandboxClient(t);
    try {
      setFaults(t, [{ kind: 'server-error', status, times: 2 }]);
      const page = await client.listTransactions({ limit: 10 });
      expect(page.rejected).toEqual([]);
      expect(client.stats()).toMatchObject({ requests: 3, retries: 2, rateLimited: 0 });
      // Full jitter with the draw fixed at 0.5: 0.5 * 250, then 0.5 * 500.
      expect(waits).toEqual([125, 250]);
    } finally {
      await client.close();
    }
  });

  it('gives up on a lasting 503 with UPSTREAM_UNAVAILABLE, attempts = maxAttempts', async () => {
    const { client } = sandboxClient(t, { retry: { maxAttempts: 3 } });
    try {
      setFaults(t, [{ kind: 'server-error', status: 503 }]);
      const error = await rejection(client.getMerchantBalance());
      expect(error).toMatchObject({
        code: 'UPSTREAM_UNAVAILABLE',
        status: 503,
        upstreamCode: 'SERVICE_UNAVAILABLE',
        attempts: 3,
      });
    } finally {
      await client.close();
    }
  });

  it('retries connection resets, and gives up with UPSTREAM_UNAVAILABLE keeping the socket error', async () => {
    const { client } = sandboxClient(t, { retry: { maxAttempts: 3 } });
    try {
      setFaults(t, [{ kind: 'reset', times: 2 }]);
      expect((await client.getMerchantBalance()).currency).toBe('USD');
      expect(client.stats()).toMatchObject({ requests: 3, retries: 2 });
      setFaults(t, [{ kind: 'reset' }]);
      const error = await rejection(client.getMerchantBalance());
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', attempts: 3, status: undefined });
      expect(['ECONNRESET', 'UND_ERR_SOCKET']).toContain((error.cause as { code?: string }).code);
    } finally {
      await client.close();
    }
  });

  it('retries truncated bodies, and gives up with UPSTREAM_MALFORMED_RESPONSE', async () => {
    const { client } = sandboxClient(t, { retry: { maxAttempts: 3 } });
    try {
      setFaults(t, [{ kind: 'truncate', times: 2 }]);
      const offerings = await client.listOfferings();
      expect(offerings.records.length).toBeGreaterThan(0);
      expect(client.stats()).toMatchObject({ requests: 3, retries: 2 });
      setFaults(t, [{ kind: 'truncate' }]);
      const error = await rejection(client.listCards());
      expect(error).toMatchObject({
        code: 'UPSTREAM_MALFORMED_RESPONSE',
        status: 200,
        attempts: 3,
      });
    } finally {
      await client.close();
    }
  });

  it('replays an order whose answer was lost after commit: same orderNo, one order upstream', async () => {
    const { client } = sandboxClient(t);
    try {
      const offering = await holderFree(client);
      const before = await cardIds(client);
      const balanceBefore = await client.getMerchantBalance();
      setFaults(t, [{ kind: 'commit-then-drop', match: { operation: 'issueCard' }, times: 1 }]);
      const body = {
        offeringId: offering.id,
        amount: offering.minLoadAmount,
        merchantOrderNo: orderNo('api-drop'),
      };
      const result = await client.issueCard(body);
      expect(result).toMatchObject({
        merchantOrderNo: body.merchantOrderNo,
        replayed: true,
        status: 201,
      });
      expect(client.stats().retries).toBe(1);
      // Asking again gives the very same order: only one was ever taken.
      const again = await client.issueCard(body);
      expect(again.orderNo).toBe(result.orderNo);
      const created = [...(await cardIds(client))].filter((id) => !before.has(id));
      expect(created).toHaveLength(1);
      const balanceAfter = await client.getMerchantBalance();
      const cents = (text: string) => BigInt(text.replace('.', ''));
      expect(cents(balanceBefore.balance) - cents(balanceAfter.balance)).toBe(
        cents(offering.minLoadAmount),
      );
    } finally {
      await client.close();
    }
  });

  it('does not retry a 4xx order refusal', async () => {
    const { client } = sandboxClient(t);
    try {
      const error = await rejection(
        client.deposit({ cardId: 'card_nope', amount: '1.00', merchantOrderNo: orderNo('nope') }),
      );
      expect(error).toMatchObject({ code: 'UPSTREAM_REJECTED', status: 404, attempts: 1 });
      expect(client.stats().retries).toBe(0);
    } finally {
      await client.close();
    }
  });
});
