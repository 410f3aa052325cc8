import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Offering } from '../../src/contract/index.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { expectError, holderFreeOffering, offeringsOf } from '../support/wire-fixtures.js';

/** The exact 401 body of the interface. */
const UNAUTHORIZED = '{"statusCode":401,"message":"Unauthorized"}';

/** Every documented operation, with a body for the POSTs that would otherwise pass validation. */
const OPERATIONS: readonly { method: 'GET' | 'POST'; path: string }[] = [
  { method: 'GET', path: '/cards' },
  { method: 'POST', path: '/cards' },
  { method: 'GET', path: '/cards/sensitive' },
  { method: 'GET', path: '/cards/info' },
  { method: 'POST', path: '/cards/freeze' },
  { method: 'POST', path: '/cards/unfreeze' },
  { method: 'POST', path: '/cards/cancel' },
  { method: 'POST', path: '/cards/withdraw' },
  { method: 'POST', path: '/cards/deposit' },
  { method: 'GET', path: '/transactions' },
  { method: 'GET', path: '/merchants/balance' },
  { method: 'GET', path: '/merchants/offerings' },
];

function expectUnauthorized(response: ApiResponse<unknown>): void {
  expect(response.status).toBe(401);
  expect(response.text).toBe(UNAUTHORIZED);
  expect(response.body).toEqual({ statusCode: 401, message: 'Unauthorized' });
  expect(String(response.headers['content-type'])).toMatch(/^application\/json/);
}

/** The ids of the offerings a key sees: a fingerprint of the merchant it authenticates. */
async function merchantSeenBy(api: ApiClient): Promise<string[]> {
  return (await offeringsOf(api)).map((o: Offering) => o.id);
}

describe('authentication', () => {
  let t: TestSandbox;
  let api: ApiClient;

  beforeAll(async () => {
    t = await startTestSandbox();
    api = t.merchants[0] as ApiClient;
  });
  afterAll(async () => t.close());

  it('answers every operation without x-api-key with exactly the 401 of the interface', async () => {
    for (const { method, path } of OPERATIONS) {
      const response = await api.call(method, path, {
        key: null,
        ...(method === 'POST' ? { body: { cardId: 'x', merchantOrderNo: orderNo() } } : {}),
      });
      expectUnauthorized(response);
    }
  });

  it('answers an unknown key, an empty key and a near-miss of a real key with the same 401', async () => {
    const real = t.sandbox.merchants[0]?.apiKey ?? '';
    for (const key of ['sk_test_unknown', '', `${real}x`, real.slice(0, -1), real.toUpperCase()]) {
      expectUnauthorized(await api.get('/merchants/balance', { key }));
    }
  });

  it('refuses an unauthenticated order before reading it: nothing is taken', async () => {
    const offering = await holderFreeOffering(api);
    const before = await api.get('/merchants/balance');
    const response = await api.post(
      '/cards',
      { offeringId: offering.id, amount: offering.minLoadAmount, merchantOrderNo: orderNo() },
      { key: 'sk_test_unknown' },
    );
    expectUnauthorized(response);
    expect((await api.get('/merchants/balance')).body).toEqual(before.body);
    expect((await api.get('/cards')).body.pagination.total).toBe(0);
  });

  it('answers an unknown path without a key with 401, so nothing is learnt about routes', async () => {
    for (const path of ['/no-such-thing', '/cards/nope', '/admin', '/_control/clock']) {
      expectUnauthorized(await api.get(path, { key: null }));
    }
  });

  it('answers an unknown path with a valid key with 404 NOT_FOUND', async () => {
    for (const path of ['/no-such-thing', '/cards/nope', '/merchants']) {
      expectError(await api.get(path), 404, 'NOT_FOUND');
    }
    expectError(await api.call('DELETE', '/cards'), 404, 'NOT_FOUND');
  });
});

describe('key management through the control surface', () => {
  let t: TestSandbox;
  let merchantId: string;
  let originalKey: string;

  beforeAll(async () => {
    t = await startTestSandbox();
    // Merchant 1's keys are changed here; merchant 0 keeps its key as a witness.
    merchantId = t.sandbox.merchants[1]?.merchantId ?? '';
    originalKey = t.sandbox.merchants[1]?.apiKey ?? '';
  });
  afterAll(async () => t.close());

  const as = (key: string) => (t.merchants[0] as ApiClient).withKey(key);

  it('adds a second key that works alongside the first, for the same merchant', async () => {
    const fingerprint = await merchantSeenBy(as(originalKey));
    const added = await t.control.post(`/_control/merchants/${merchantId}/keys`, {});
    expect(added.status, added.text).toBe(201);
    expect(added.body.merchantId).toBe(merchantId);
    const secondKey: string = added.body.apiKey;
    expect(secondKey).not.toBe(originalKey);

    expect(await merchantSeenBy(as(secondKey))).toEqual(fingerprint);
    expect(await merchantSeenBy(as(originalKey))).toEqual(fingerprint);
    expect(fingerprint).not.toEqual(await merchantSeenBy(t.merchants[0] as ApiClient));
  });

  it('rotating revokes every old key at once and the new key works for the same merchant', async () => {
    const fingerprint = await merchantSeenBy(as(originalKey));
    const added = await t.control.post(`/_control/merchants/${merchantId}/keys`, {});
    const extraKey: string = added.body.apiKey;

    const rotated = await t.control.post(`/_control/merchants/${merchantId}/keys/rotate`, {});
    expect(rotated.status, rotated.text).toBe(201);
    const newKey: string = rotated.body.apiKey;
    expect([originalKey, extraKey]).not.toContain(newKey);

    expectUnauthorized(await as(originalKey).get('/merchants/balance'));
    expectUnauthorized(await as(extraKey).get('/cards'));
    expect(await merchantSeenBy(as(newKey))).toEqual(fingerprint);
    // Another merchant's key is untouched.
    expect((await (t.merchants[0] as ApiClient).get('/merchants/balance')).status).toBe(200);
    originalKey = newKey;
  });

  it('rotating one named key revokes only that key', async () => {
    const added = await t.control.post(`/_control/merchants/${merchantId}/keys`, {});
    const doomed: string = added.body.apiKey;
    const rotated = await t.control.post(`/_control/merchants/${merchantId}/keys/rotate`, {
      apiKey: doomed,
    });
    expect(rotated.status, rotated.text).toBe(201);
    expectUnauthorized(await as(doomed).get('/merchants/balance'));
    expect((await as(originalKey).get('/merchants/balance')).status).toBe(200);
    expect((await as(rotated.body.apiKey).get('/merchants/balance')).status).toBe(200);
  });

  it("refuses to rotate a key the merchant does not hold, leaving the other merchant's key live", async () => {
    const otherKey = t.sandbox.merchants[0]?.apiKey ?? '';
    const rotated = await t.control.post(`/_control/merchants/${merchantId}/keys/rotate`, {
      apiKey: otherKey,
    });
    expectError(rotated, 404, 'NOT_FOUND');
    expect((await as(otherKey).get('/merchants/balance')).status).toBe(200);
    expect((await as(originalKey).get('/merchants/balance')).status).toBe(200);
  });

  it('answers 404 for keys of a merchant that does not exist', async () => {
    expectError(await t.control.post('/_control/merchants/mch_nobody/keys', {}), 404, 'NOT_FOUND');
  });
});

describe('the control surface', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => t.close());

  it('refuses a merchant key with 401: only the control token opens it', async () => {
    const api = t.merchants[0] as ApiClient;
    const merchantId = t.sandbox.merchants[0]?.merchantId ?? '';
    expectUnauthorized(await api.get('/_control/clock'));
    expectUnauthorized(await api.post('/_control/clock', { advanceMs: 1 }));
    expectUnauthorized(await api.post(`/_control/merchants/${merchantId}/keys`, {}));
    expectUnauthorized(
      await api.post(`/_control/merchants/${merchantId}/top-up`, { amount: '1.00' }),
    );
    expectUnauthorized(
      await api.get('/_control/clock', { headers: { 'x-control-token': 'not-the-token' } }),
    );
  });

  it('leaves the state untouched when a merchant key tries it', async () => {
    const api = t.merchants[0] as ApiClient;
    const before = await t.control.get('/_control/clock');
    await api.post('/_control/clock', { advanceMs: 86_400_000 });
    const after = await t.control.get('/_control/clock');
    expect(after.body.offsetMs).toBe(before.body.offsetMs);
  });

  it('opens with the control token', async () => {
    const response = await t.control.get('/_control/clock');
    expect(response.status).toBe(200);
    expect(response.body.offsetMs).toBe(0);
  });
});

describe('a sandbox started without control: true', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ control: false });
  });
  afterAll(async () => t.close());

  it('has no control token', () => {
    expect(t.sandbox.controlToken).toBeNull();
  });

  it('answers the control routes with 404 NOT_FOUND to a merchant key', async () => {
    const api = t.merchants[0] as ApiClient;
    const merchantId = t.sandbox.merchants[0]?.merchantId ?? '';
    expectError(await api.get('/_control/clock'), 404, 'NOT_FOUND');
    expectError(await api.post('/_control/orders/process', {}), 404, 'NOT_FOUND');
    expectError(await api.post(`/_control/merchants/${merchantId}/keys`, {}), 404, 'NOT_FOUND');
  });

  it('answers the control routes with 401 without a key, whatever token is sent', async () => {
    expectUnauthorized(await t.anonymous.get('/_control/clock'));
    expectUnauthorized(
      await t.anonymous.get('/_control/clock', { headers: { 'x-control-token': '' } }),
    );
    expectUnauthorized(
      await t.anonymous.post(
        '/_control/orders/process',
        {},
        { headers: { 'x-control-token': 'x' } },
      ),
    );
  });

  it('still serves the merchant operations', async () => {
    expect((await (t.merchants[0] as ApiClient).get('/merchants/balance')).status).toBe(200);
  });
});
