import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CardIssuingClient, UpstreamError } from '../../src/api/index.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { cardIds, holderFree, processOrder, sandboxClient } from './client-fixtures.js';

async function rejection(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('CardIssuingClient: the twelve operations against the sandbox', () => {
  let t: TestSandbox;
  let api: CardIssuingClient;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-operations' });
    api = sandboxClient(t).client;
  });
  afterAll(async () => {
    await api.close();
    await t.close();
  });

  it('reads the balance, the offerings and empty lists, validated, and notes the upstream clock', async () => {
    expect(api.upstreamNow()).toBeUndefined();
    const balance = await api.getMerchantBalance();
    expect(balance).toEqual({ balance: expect.stringMatching(/^\d+\.\d{2}$/), currency: 'USD' });
    const before = Date.now();
    const now = api.upstreamNow();
    const after = Date.now();
    expect(now).toBeTypeOf('number');
    // The sandbox shares this host's clock: its Date headers agree with it, so it is kept (a
    // bracket, not a tolerance: a loaded machine may pause for milliseconds between two reads).
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(after);

    const offerings = await api.listOfferings();
    expect(offerings.rejected).toEqual([]);
    expect(offerings.records.length).toBeGreaterThan(0);
    expect(offerings.records[0]).toMatchObject({
      id: expect.any(String),
      requiresHolder: expect.any(Boolean),
    });

    const cards = await api.listCards({ status: 'ACTIVE', limit: 5 });
    expect(cards).toEqual({
      records: [],
      rejected: [],
      pagination: { total: 0, page: 1, limit: 5, totalPages: 0 },
    });
    const txns = await api.listTransactions({ type: 'FEE', startTime: '2020-01-01T00:00:00Z' });
    expect(txns.pagination.limit).toBe(20);
  });

  it('issues a card, reads it and its sensitive fields, and runs every card order on it', async () => {
    const offering = await holderFree(api);
    const before = await cardIds(api);
    const issueNo = orderNo('api-issue');
    const issued = await api.issueCard({
      offeringId: offering.id,
      amount: offering.maxLoadAmount,
      merchantOrderNo: issueNo,
    });
    expect(issued).toEqual({
      orderNo: expect.stringMatching(/^ord_/),
      merchantOrderNo: issueNo,
      replayed: false,
      status: 201,
    });
    const created = [...(await cardIds(api))].filter((id) => !before.has(id));
    expect(created).toHaveLength(1);
    const cardId = created[0] as string;
    expect((await api.getCard(cardId)).status).toBe('PENDING');
    await processOrder(t, issued.orderNo);

    const card = await api.getCard(cardId);
    expect(card).toMatchObject({ cardId, status: 'ACTIVE', currency: 'USD' });
    const sensitive = await api.getSensitiveCard(cardId);
    expect(sensitive.cardNumber.endsWith(card.lastFour)).toBe(true);
    expect(sensitive.expiryMonth).toMatch(/^(0[1-9]|1[0-2])$/);

    const fees = await api.listTransactions({ cardId, type: 'FEE', limit: 100 });
    expect(fees.rejected).toEqual([]);
    expect(fees.records.map((r) => r.tradeNo)).toContain(issued.orderNo);

    const deposit = await api.deposit({ cardId, amount: '1.00', merchantOrderNo: orderNo('dep') });
    expect(deposit.status).toBe(201);
    await processOrder(t, deposit.orderNo);
    const withdrawal = await api.withdraw({
      cardId,
      amount: '1.00',
      merchantOrderNo: orderNo('wd'),
    });
    expect(withdrawal.orderNo).toMatch(/^ord_/);
    await processOrder(t, withdrawal.orderNo);

    const frozen = await api.freezeCard({ cardId, merchantOrderNo: orderNo('frz') });
    expect((await api.getCard(cardId)).status).toBe('FREEZING');
    await processOrder(t, frozen.orderNo);
    expect((await api.getCard(cardId)).status).toBe('FROZEN');
    const unfrozen = await api.unfreezeCard({ cardId, merchantOrderNo: orderNo('unf') });
    await processOrder(t, unfrozen.orderNo);
    expect((await api.getCard(cardId)).status).toBe('ACTIVE');
    const cancelled = await api.cancelCard({ cardId, merchantOrderNo: orderNo('cnl') });
    expect((await api.getCard(cardId)).status).toBe('CANCELLING');
    await processOrder(t, cancelled.orderNo);
    expect((await api.getCard(cardId)).status).toBe('CANCELLED');
  });

  it('replays an order sent twice with the same merchantOrderNo and reports it as replayed', async () => {
    const offering = await holderFree(api);
    const body = {
      offeringId: offering.id,
      amount: offering.minLoadAmount,
      merchantOrderNo: orderNo('twice'),
    };
    const first = await api.issueCard(body);
    const second = await api.issueCard(body);
    expect(second).toEqual({ ...first, replayed: true });
  });

  it('answers an unknown card with UPSTREAM_REJECTED 404 CARD_NOT_FOUND after one attempt', async () => {
    const error = await rejection(api.getCard('card_does_not_exist'));
    expect(error).toMatchObject({
      code: 'UPSTREAM_REJECTED',
      status: 404,
      upstreamCode: 'CARD_NOT_FOUND',
      attempts: 1,
      operation: 'getCard',
    });
  });

  it('answers a reused merchantOrderNo with other parameters with DUPLICATE_ORDER, not retried', async () => {
    const offering = await holderFree(api);
    const merchantOrderNo = orderNo('dup');
    await api.issueCard({
      offeringId: offering.id,
      amount: offering.minLoadAmount,
      merchantOrderNo,
    });
    const error = await rejection(
      api.issueCard({ offeringId: offering.id, amount: offering.maxLoadAmount, merchantOrderNo }),
    );
    expect(error).toMatchObject({
      code: 'UPSTREAM_REJECTED',
      status: 409,
      upstreamCode: 'DUPLICATE_ORDER',
      attempts: 1,
    });
  });

  it('passes a refused query value through as UPSTREAM_REJECTED VALIDATION_FAILED', async () => {
    const error = await rejection(api.listCards({ limit: 0 }));
    expect(error).toMatchObject({
      code: 'UPSTREAM_REJECTED',
      status: 400,
      upstreamCode: 'VALIDATION_FAILED',
    });
    expect(error.message).toContain('limit');
  });

  it('answers an unknown key with UPSTREAM_UNAUTHORIZED after exactly one attempt', async () => {
    const { client } = sandboxClient(t, { apiKey: 'not-a-key-of-anyone' });
    try {
      const error = await rejection(client.getMerchantBalance());
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAUTHORIZED', status: 401, attempts: 1 });
      expect(client.stats()).toMatchObject({ requests: 1, retries: 0 });
    } finally {
      await client.close();
    }
  });

  it('keeps a path prefix of the base URL and tolerates a trailing slash', async () => {
    const { client } = sandboxClient(t, { baseUrl: `${t.sandbox.baseUrl}/` });
    const prefixed = sandboxClient(t, { baseUrl: `${t.sandbox.baseUrl}/v9/` }).client;
    try {
      expect((await client.getMerchantBalance()).currency).toBe('USD');
      // The sandbox serves no prefix, so a prefixed path is its 404.
      expect(await rejection(prefixed.getMerchantBalance())).toMatchObject({ status: 404 });
    } finally {
      await client.close();
      await prefixed.close();
    }
  });
});
