import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { minorOf } from '../../support/decimal-text.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';
import { clearFaults, rawCall, setFaults } from './raw-call.js';

/** The undici error codes a client sees when the server drops or resets the connection. */
const SOCKET_ERRORS = ['UND_ERR_SOCKET', 'ECONNRESET'];

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: string; cause?: { code?: string } };
  return e.code ?? e.cause?.code;
}

describe('fault lab: connection faults seen by a real undici client', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'connection-faults' });
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    await clearFaults(t);
  });

  it('resets the connection before any response byte, then serves the next call normally', async () => {
    await setFaults(t, [{ kind: 'reset', match: { operation: 'getMerchantBalance' }, times: 1 }]);
    const failure = await rawCall(t, 'GET', '/merchants/balance').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(SOCKET_ERRORS).toContain(errorCode(failure));
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(200);
  });

  it('cuts a body off mid-JSON after a head that promised all of it', async () => {
    await setFaults(t, [{ kind: 'truncate', match: { operation: 'listOfferings' }, times: 1 }]);
    const response = await request(`${t.sandbox.baseUrl}/merchants/offerings`, {
      headers: { 'x-api-key': t.sandbox.merchants[0]?.apiKey ?? '' },
      dispatcher: t.agent,
    });
    expect(response.statusCode).toBe(200);
    const promised = Number(response.headers['content-length']);
    expect(promised).toBeGreaterThan(100);
    let text = '';
    let bodyError: unknown;
    try {
      text = await response.body.text();
    } catch (error) {
      bodyError = error;
    }
    if (bodyError === undefined) {
      // Some clients hand over what arrived; it must still be short and not parse.
      expect(Buffer.byteLength(text)).toBeLessThan(promised);
      expect(() => JSON.parse(text)).toThrow();
    } else {
      expect(SOCKET_ERRORS).toContain(errorCode(bodyError));
    }
    const whole = await rawCall(t, 'GET', '/merchants/offerings');
    expect(Buffer.byteLength(whole.text)).toBe(promised);
    expect(JSON.parse(whole.text).data.length).toBeGreaterThan(0);
  });

  it('commits an order and then drops the connection: a replay of the reference gets the same order', async () => {
    const offerings = JSON.parse((await rawCall(t, 'GET', '/merchants/offerings')).text).data as {
      id: string;
      minLoadAmount: string;
      requiresHolder: boolean;
    }[];
    const offering = offerings.find((o) => !o.requiresHolder);
    const before = JSON.parse((await rawCall(t, 'GET', '/merchants/balance')).text).data.balance;
    const body = {
      offeringId: offering?.id,
      amount: offering?.minLoadAmount,
      merchantOrderNo: orderNo('dropped'),
    };
    await setFaults(t, [{ kind: 'commit-then-drop', match: { operation: 'issueCard' }, times: 1 }]);

    const lost = await rawCall(t, 'POST', '/cards', { body }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(SOCKET_ERRORS).toContain(errorCode(lost));

    const replay = await rawCall(t, 'POST', '/cards', { body });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const { orderNo: number, merchantOrderNo } = JSON.parse(replay.text).data;
    expect(merchantOrderNo).toBe(body.merchantOrderNo);
    expect(number).toMatch(/^ord_/);

    // Committed exactly once: one PENDING card, the load taken from the balance once.
    const cards = JSON.parse((await rawCall(t, 'GET', '/cards')).text);
    expect(cards.pagination.total).toBe(1);
    expect(cards.data[0].status).toBe('PENDING');
    const after = JSON.parse((await rawCall(t, 'GET', '/merchants/balance')).text).data.balance;
    expect(minorOf(before, 2) - minorOf(after, 2)).toBe(minorOf(offering?.minLoadAmount ?? '', 2));
  });

  it('never applies commit-then-drop to a read', async () => {
    await setFaults(t, [{ kind: 'commit-then-drop' }]);
    expect((await rawCall(t, 'GET', '/merchants/balance')).status).toBe(200);
    const listed = await t.control.get('/_control/faults');
    expect(listed.body.rules[0]).toMatchObject({ calls: 0, fired: 0, remaining: null });
  });
});
