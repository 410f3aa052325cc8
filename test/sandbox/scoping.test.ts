import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Card, Offering, Transaction } from '../../src/contract/index.js';
import type { ApiClient } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import {
  activeCard,
  allCards,
  allTransactions,
  type ErrorReply,
  expectError,
  holderFreeOffering,
  type Issued,
  issueCard,
  offeringsOf,
  type Page,
  postTransaction,
} from '../support/wire-fixtures.js';

describe('scoping between two merchants', () => {
  let t: TestSandbox;
  let a: ApiClient;
  let b: ApiClient;
  let aOffering: Offering;
  let aActive: Issued;
  let aPending: Issued;
  let bActive: Issued;
  let aPurchase: Transaction;

  beforeAll(async () => {
    t = await startTestSandbox();
    a = t.merchants[0] as ApiClient;
    b = t.merchants[1] as ApiClient;
    aOffering = await holderFreeOffering(a);
    aActive = await activeCard(a, t.control, aOffering, aOffering.maxLoadAmount);
    aPending = await issueCard(a, aOffering);
    aPurchase = await postTransaction(t.control, aActive.cardId, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '2.00',
    });
    bActive = await activeCard(b, t.control, await holderFreeOffering(b));
  });
  afterAll(async () => t.close());

  /** A merchant's view of one card and its own balance, to show nothing moved. */
  async function snapshot() {
    const [card, aBalance, bBalance, bCards] = await Promise.all([
      a.get('/cards/info', { query: { cardId: aActive.cardId } }),
      a.get('/merchants/balance'),
      b.get('/merchants/balance'),
      b.get('/cards'),
    ]);
    return {
      card: card.body,
      aBalance: aBalance.body,
      bBalance: bBalance.body,
      bCards: bCards.body,
    };
  }

  it("lists none of A's cards to B, under any status filter", async () => {
    const bMerchantId = t.sandbox.merchants[1]?.merchantId;
    const cards = await allCards(b);
    expect(cards.map((c) => c.cardId)).toEqual([bActive.cardId]);
    expect(cards.every((c) => c.merchantId === bMerchantId)).toBe(true);
    for (const status of ['ACTIVE', 'PENDING']) {
      const response = await b.get<Page<Card>>('/cards', { query: { status } });
      const ids = response.body.data.map((c) => c.cardId);
      expect(ids).not.toContain(aActive.cardId);
      expect(ids).not.toContain(aPending.cardId);
    }
    // A sees its own two cards, so the absence above is scoping, not an empty service.
    expect((await allCards(a)).map((c) => c.cardId).sort()).toEqual(
      [aActive.cardId, aPending.cardId].sort(),
    );
  });

  it("lists none of A's transactions to B, even when B filters by A's cardId", async () => {
    const bCardIds = new Set([bActive.cardId]);
    const bTransactions = await allTransactions(b);
    expect(bTransactions.length).toBeGreaterThan(0);
    expect(bTransactions.every((x) => bCardIds.has(x.cardId))).toBe(true);
    expect(bTransactions.map((x) => x.transactionId)).not.toContain(aPurchase.transactionId);

    const filtered = await b.get<Page<Transaction>>('/transactions', {
      query: { cardId: aActive.cardId },
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body.data).toEqual([]);
    expect(filtered.body.pagination.total).toBe(0);

    const own = await allTransactions(a, { cardId: aActive.cardId });
    expect(own.map((x) => x.transactionId)).toContain(aPurchase.transactionId);
  });

  for (const path of ['/cards/info', '/cards/sensitive']) {
    it(`answers ${path} of A's card to B with 404 CARD_NOT_FOUND, like an unknown card`, async () => {
      const foreign = await b.get(path, { query: { cardId: aActive.cardId } });
      const unknown = await b.get(path, { query: { cardId: 'card_00000000000000000000' } });
      expectError(foreign, 404, 'CARD_NOT_FOUND');
      expectError(unknown, 404, 'CARD_NOT_FOUND');
      // Same shape and words, the card id aside: nothing tells B that the card exists.
      const strip = (r: typeof foreign, id: string) =>
        JSON.parse(r.text.replaceAll(id, '<id>')) as ErrorReply;
      expect(strip(foreign, aActive.cardId)).toEqual(strip(unknown, 'card_00000000000000000000'));
      expect(foreign.text).not.toContain(t.sandbox.merchants[0]?.merchantId ?? 'mch_');
      expect(Object.keys(foreign.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
    });
  }

  it("answers every order B places on A's card with 404 CARD_NOT_FOUND and moves nothing", async () => {
    const before = await snapshot();
    const attempts = [
      { path: '/cards/freeze', body: {} },
      { path: '/cards/unfreeze', body: {} },
      { path: '/cards/cancel', body: {} },
      { path: '/cards/deposit', body: { amount: '5.00' } },
      { path: '/cards/withdraw', body: { amount: '1.00' } },
    ];
    for (const { path, body } of attempts) {
      const response = await b.post(path, {
        cardId: aActive.cardId,
        merchantOrderNo: orderNo('foreign'),
        ...body,
      });
      expectError(response, 404, 'CARD_NOT_FOUND');
    }
    const deposit = await b.post('/cards/deposit', {
      cardId: aPending.cardId,
      amount: '5.00',
      merchantOrderNo: orderNo('foreign'),
    });
    expectError(deposit, 404, 'CARD_NOT_FOUND');
    expect(await snapshot()).toEqual(before);
    const queued = await t.control.post('/_control/orders/process', {});
    expect(queued.body.processed.map((p: { kind: string }) => p.kind)).toEqual(['ISSUE']);
  });

  it("answers B issuing from A's offering with 404 OFFERING_NOT_FOUND and takes nothing", async () => {
    const before = await snapshot();
    const response = await b.post('/cards', {
      offeringId: aOffering.id,
      amount: aOffering.minLoadAmount,
      merchantOrderNo: orderNo('foreign'),
    });
    expectError(response, 404, 'OFFERING_NOT_FOUND');
    expect((await offeringsOf(b)).map((o) => o.id)).not.toContain(aOffering.id);
    expect(await snapshot()).toEqual(before);
  });

  it('keeps merchantOrderNo per merchant: B may reuse a reference A already used', async () => {
    const reference = orderNo('shared');
    const aOrder = await a.post('/cards', {
      offeringId: aOffering.id,
      amount: aOffering.minLoadAmount,
      merchantOrderNo: reference,
    });
    expect(aOrder.status, aOrder.text).toBe(201);
    const bOffering = await holderFreeOffering(b);
    const bOrder = await b.post('/cards', {
      offeringId: bOffering.id,
      amount: bOffering.minLoadAmount,
      merchantOrderNo: reference,
    });
    expect(bOrder.status, bOrder.text).toBe(201);
    expect(bOrder.headers['idempotent-replayed']).toBeUndefined();
    expect(bOrder.body.data.orderNo).not.toBe(aOrder.body.data.orderNo);
    expect(bOrder.body.data.merchantOrderNo).toBe(reference);
  });
});
