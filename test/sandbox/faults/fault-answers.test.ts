import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';
import { clearFaults, rawCall, setFaults } from './raw-call.js';

describe('fault lab: injected answers (429, 5xx, latency)', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'fault-answers' });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    await clearFaults(t);
  });

  it('answers 429 RATE_LIMITED with Retry-After in seconds and an error body, for the next N calls only', async () => {
    await setFaults(t, [{ kind: 'rate-limit', retryAfterSeconds: 7, times: 2 }]);
    for (let i = 0; i < 2; i++) {
      const limited = await rawCall(t, 'GET', '/merchants/balance');
      expect(limited.status).toBe(429);
      expect(limited.headers['retry-after']).toBe('7');
      expect(limited.headers['x-sandbox-version']).toBeDefined();
      expect(JSON.parse(limited.text)).toEqual({
        statusCode: 429,
        error: 'Too Many Requests',
        code: 'RATE_LIMITED',
        message: expect.any(String),
      });
    }
    const normal = await rawCall(t, 'GET', '/merchants/balance');
    expect(normal.status).toBe(200);
    expect(normal.headers['retry-after']).toBeUndefined();
    const listed = await t.control.get('/_control/faults');
    expect(listed.body.rules).toEqual([
      expect.objectContaining({ kind: 'rate-limit', times: 2, fired: 2, remaining: 0 }),
    ]);
  });

  it.each([
    [500, 'INTERNAL_ERROR', 'Internal Server Error'],
    [502, 'BAD_GATEWAY', 'Bad Gateway'],
    [503, 'SERVICE_UNAVAILABLE', 'Service Unavailable'],
  ])(
    'answers a server-error fault %i with code %s and a proper error body',
    async (status, code, reason) => {
      await setFaults(t, [{ kind: 'server-error', status, times: 1 }]);
      const failed = await rawCall(t, 'GET', '/merchants/offerings');
      expect(failed.status).toBe(status);
      expect(JSON.parse(failed.text)).toEqual({
        statusCode: status,
        error: reason,
        code,
        message: expect.any(String),
      });
      expect((await rawCall(t, 'GET', '/merchants/offerings')).status).toBe(200);
    },
  );

  it('does not take an order that it answers with 429 or 503: the same reference then succeeds once', async () => {
    const offerings = JSON.parse((await rawCall(t, 'GET', '/merchants/offerings')).text).data as {
      id: string;
      minLoadAmount: string;
      requiresHolder: boolean;
    }[];
    const offering = offerings.find((o) => !o.requiresHolder);
    const body = {
      offeringId: offering?.id,
      amount: offering?.minLoadAmount,
      merchantOrderNo: `fault-answers-${Date.now()}`,
    };
    await setFaults(t, [
      { kind: 'rate-limit', match: { operation: 'issueCard' }, times: 1 },
      { kind: 'server-error', status: 503, match: { operation: 'issueCard' }, times: 1 },
    ]);
    expect((await rawCall(t, 'POST', '/cards', { body })).status).toBe(429);
    expect((await rawCall(t, 'POST', '/cards', { body })).status).toBe(503);
    const taken = await rawCall(t, 'POST', '/cards', { body });
    expect(taken.status).toBe(201);
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
  });

  it('delays a call by at least the configured latency', async () => {
    await setFaults(t, [
      { kind: 'latency', ms: 150, jitterMs: 30, match: { operation: 'getMerchantBalance' } },
    ]);
    const slow = await rawCall(t, 'GET', '/merchants/balance');
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(150);
    expect(JSON.parse(slow.text).data.currency).toBe('USD');
  });

  it('matches per route: a rule for listTransactions leaves getMerchantBalance alone', async () => {
    await setFaults(t, [
      { kind: 'server-error', status: 500, match: { operation: 'listTransactions' } },
    ]);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(200);
    expect((await rawCall(t, 'GET', '/transactions')).status).toBe(500);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(200);
  });

  it('matches per merchant: a rule for one merchant leaves the other alone', async () => {
    const [first, second] = t.sandbox.merchants;
    await setFaults(t, [
      { kind: 'rate-limit', retryAfterSeconds: 3, match: { merchantId: second?.merchantId } },
    ]);
    expect((await rawCall(t, 'GET', '/merchants/balance', { merchant: 1 })).status).toBe(429);
    expect((await rawCall(t, 'GET', '/merchants/balance', { merchant: 0 })).status).toBe(200);
    expect((await rawCall(t, 'GET', '/cards', { merchant: 0 })).status).toBe(200);
    expect((await rawCall(t, 'GET', '/cards', { merchant: 1 })).status).toBe(429);
    expect(first?.merchantId).not.toBe(second?.merchantId);
  });

  it('never faults an unauthenticated call: the 401 stays exact', async () => {
    await setFaults(t, [{ kind: 'server-error', status: 503 }]);
    const anonymous = await t.anonymous.get('/merchants/balance', { key: 'sk_nobody' });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ statusCode: 401, message: 'Unauthorized' });
  });

  it('applies only the first ending fault of a call; later ones neither fire nor count', async () => {
    await setFaults(t, [
      { id: 'first', kind: 'server-error', status: 502, times: 1 },
      { id: 'second', kind: 'rate-limit', times: 1 },
    ]);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(502);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(429);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(200);
    const listed = await t.control.get('/_control/faults');
    expect(
      listed.body.rules.map((r: { id: string; calls: number; fired: number }) => [
        r.id,
        r.calls,
        r.fired,
      ]),
    ).toEqual([
      ['first', 1, 1],
      ['second', 1, 1],
    ]);
  });
});

describe('fault lab: probability draws', () => {
  const rules = [{ id: 'flaky', kind: 'server-error', status: 503, probability: 0.5 }] as const;

  async function statuses(seed: string): Promise<number[]> {
    const t = await startTestSandbox({ seed, faults: rules });
    try {
      const seen: number[] = [];
      for (let i = 0; i < 24; i++)
        seen.push((await rawCall(t, 'GET', '/merchants/balance')).status);
      return seen;
    } finally {
      await t.close();
    }
  }

  it('draws the same faults for the same seed, and a mix of them', async () => {
    const first = await statuses('probability-seed');
    const second = await statuses('probability-seed');
    expect(second).toEqual(first);
    expect(first).toContain(503);
    expect(first).toContain(200);
  });
});
