import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { type ErrorReply, holderFreeOffering } from '../support/wire-fixtures.js';

/** The budget the sandbox is started with, per key and per second. */
const PER_SECOND = 3;

describe('rate limiting (rateLimitPerSecond: 3)', () => {
  let t: TestSandbox;

  beforeAll(async () => {
    t = await startTestSandbox({ rateLimitPerSecond: PER_SECOND });
  });
  afterAll(async () => t.close());

  /**
   * A client with a key nobody has used yet, so each test starts with a full budget without
   * waiting for a window to pass. Control routes are not rate limited.
   */
  async function freshKey(merchantIndex: number): Promise<ApiClient> {
    const merchantId = t.sandbox.merchants[merchantIndex]?.merchantId ?? '';
    const added = await t.control.post(`/_control/merchants/${merchantId}/keys`, {});
    expect(added.status, added.text).toBe(201);
    return (t.merchants[merchantIndex] as ApiClient).withKey(added.body.apiKey);
  }

  /** Fire `count` reads at once. */
  function burst(api: ApiClient, count: number): Promise<ApiResponse<unknown>[]> {
    return Promise.all(Array.from({ length: count }, () => api.get('/merchants/balance')));
  }

  it('answers 429 RATE_LIMITED with Retry-After in whole seconds once a key exceeds its budget', async () => {
    const api = await freshKey(0);
    const answers = await burst(api, PER_SECOND + 5);
    const passed = answers.filter((a) => a.status === 200);
    const limited = answers.filter((a) => a.status === 429);
    expect(passed).toHaveLength(PER_SECOND);
    expect(limited).toHaveLength(5);
    for (const answer of limited) {
      const body = answer.body as ErrorReply;
      expect(body).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED' });
      expect(typeof body.message).toBe('string');
      const retryAfter = String(answer.headers['retry-after']);
      expect(retryAfter).toMatch(/^\d+$/);
      // The window is one second: a wait in seconds is 1 (a value in milliseconds would be 1000).
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(1);
      expect(answer.headers['x-sandbox-version']).toBeDefined();
    }
  });

  it("gives another merchant's key its own budget", async () => {
    const first = await freshKey(0);
    const other = await freshKey(1);
    const exhausted = await burst(first, PER_SECOND + 2);
    expect(exhausted.some((a) => a.status === 429)).toBe(true);
    const fresh = await burst(other, PER_SECOND);
    expect(fresh.map((a) => a.status)).toEqual(Array(PER_SECOND).fill(200));
  });

  it('counts per key: a second key of the same merchant has its own budget too', async () => {
    const first = await freshKey(0);
    const second = await freshKey(0);
    expect((await burst(first, PER_SECOND + 2)).some((a) => a.status === 429)).toBe(true);
    const answers = await burst(second, PER_SECOND);
    expect(answers.map((a) => a.status)).toEqual(Array(PER_SECOND).fill(200));
  });

  it('limits orders too, takes nothing from a refused one and does not remember its reference', async () => {
    // Each read goes through a key of its own so the reads themselves never hit the limit.
    const read = async (path: string) => (await freshKey(0)).get(path);
    const offering = await holderFreeOffering(await freshKey(0));
    const balanceBefore = await read('/merchants/balance');
    const cardsBefore = await read('/cards');

    const api = await freshKey(0);
    await burst(api, PER_SECOND);
    const body = {
      offeringId: offering.id,
      amount: offering.minLoadAmount,
      merchantOrderNo: orderNo('limited'),
    };
    const refused = await api.post('/cards', body);
    expect(refused.status, refused.text).toBe(429);
    expect((refused.body as ErrorReply).code).toBe('RATE_LIMITED');
    expect((await read('/merchants/balance')).body).toEqual(balanceBefore.body);
    expect((await read('/cards')).body).toEqual(cardsBefore.body);

    // The same reference retried under a fresh budget is a first request, not a replay.
    const retried = await (await freshKey(0)).post('/cards', body);
    expect(retried.status, retried.text).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    const cardsAfter = await read('/cards');
    expect(cardsAfter.body.pagination.total).toBe(cardsBefore.body.pagination.total + 1);
  });
});
