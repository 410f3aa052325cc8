import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../support/api-client.js';
import {
  CARD_ORDER_PATHS,
  type CardOrderKind,
  MerchantSession,
  type WireOffering,
} from '../support/merchant-session.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  404: 'Not Found',
  409: 'Conflict',
  422: 'Unprocessable Entity',
};

function expectError(response: ApiResponse, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body).toMatchObject({ statusCode: status, error: REASONS[status], code });
  if (code === 'VALIDATION_FAILED') {
    expect(Array.isArray(response.body.message)).toBe(true);
    expect(response.body.message.length).toBeGreaterThan(0);
  } else {
    expect(typeof response.body.message).toBe('string');
  }
}

/** Amount texts that are not an unsigned plain decimal in any currency. */
const MALFORMED = ['-5', '+5', '1e3', 'abc', '', ' 5', '5 ', '.5', '5.', '1,00', '0x10', '1 000'];

/** Per currency: texts with more fractional digits than its exponent allows. */
const TOO_PRECISE: Readonly<Record<string, readonly string[]>> = {
  USD: ['1.001', '1.500', '10.999'],
  JPY: ['1.5', '1.0', '100.00'],
};

const CURRENCIES = [
  { currency: 'USD', merchant: 0, drained: 2 },
  { currency: 'JPY', merchant: 1, drained: 3 },
] as const;

describe('order refusals (reference-model section 1)', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ merchants: 4, currencies: ['USD', 'JPY'] });
  });
  afterAll(async () => t.close());

  describe.each(CURRENCIES)('in $currency', ({ currency, merchant, drained }) => {
    let m: MerchantSession;
    let everyday: WireOffering;
    let cardId: string;
    beforeAll(async () => {
      m = new MerchantSession(t, merchant);
      expect(m.currency).toBe(currency);
      everyday = await m.everydayOffering();
      cardId = (await m.activeCard(everyday)).cardId;
    });

    it('an unknown offering answers 404 OFFERING_NOT_FOUND and moves no money', async () => {
      const before = await m.balance();
      const response = await m.postIssue({
        offeringId: 'off_does_not_exist',
        amount: everyday.minLoadAmount,
        merchantOrderNo: orderNo('issue'),
      });
      expectError(response, 404, 'OFFERING_NOT_FOUND');
      expect(await m.balance()).toBe(before);
    });

    it("another merchant's offering answers 404 OFFERING_NOT_FOUND", async () => {
      const other = new MerchantSession(t, merchant === 0 ? 1 : 0);
      const foreign = await other.everydayOffering();
      const before = await m.balance();
      const cardsBefore = await m.allCards();
      const response = await m.postIssue({
        offeringId: foreign.id,
        amount: everyday.minLoadAmount,
        merchantOrderNo: orderNo('issue'),
      });
      expectError(response, 404, 'OFFERING_NOT_FOUND');
      expect(await m.balance()).toBe(before);
      expect(await m.allCards()).toEqual(cardsBefore);
    });

    it('an offering that requires a holder answers 400 HOLDER_REQUIRED without holderId and 201 with one', async () => {
      const corporate = await m.offering((o) => o.requiresHolder);
      const before = await m.balance();
      const amount = m.minor(corporate.minLoadAmount);
      const refused = await m.postIssue({
        offeringId: corporate.id,
        amount: corporate.minLoadAmount,
        merchantOrderNo: orderNo('issue'),
      });
      expectError(refused, 400, 'HOLDER_REQUIRED');
      expect(await m.balance()).toBe(before);
      const placed = await m.issue(corporate, amount, { holderId: 'holder-42' });
      expect(await m.balance()).toBe(before - amount);
      await m.process(placed.orderNo);
      expect(await m.cardStatus(placed.cardId)).toBe('ACTIVE');
    });

    it('an initial load one minor unit below the minimum answers 422 LOAD_OUT_OF_BOUNDS', async () => {
      const before = await m.balance();
      const response = await m.postIssue({
        offeringId: everyday.id,
        amount: m.text(m.minor(everyday.minLoadAmount) - 1n),
        merchantOrderNo: orderNo('issue'),
      });
      expectError(response, 422, 'LOAD_OUT_OF_BOUNDS');
      expect(await m.balance()).toBe(before);
    });

    it('an initial load one minor unit above the maximum answers 422 LOAD_OUT_OF_BOUNDS', async () => {
      const before = await m.balance();
      const response = await m.postIssue({
        offeringId: everyday.id,
        amount: m.text(m.minor(everyday.maxLoadAmount) + 1n),
        merchantOrderNo: orderNo('issue'),
      });
      expectError(response, 422, 'LOAD_OUT_OF_BOUNDS');
      expect(await m.balance()).toBe(before);
    });

    it.each([
      ['minimum', 'minLoadAmount'],
      ['maximum', 'maxLoadAmount'],
    ] as const)('an initial load of exactly the %s is accepted', async (_, field) => {
      const before = await m.balance();
      const amount = m.minor(everyday[field]);
      const placed = await m.issue(everyday, amount);
      expect(await m.balance()).toBe(before - amount);
      await m.process(placed.orderNo);
      expect(await m.cardStatus(placed.cardId)).toBe('ACTIVE');
    });

    it('a withdrawal of one minor unit more than the card balance answers 422 INSUFFICIENT_CARD_BALANCE; exactly the balance is accepted', async () => {
      const balance = await m.cardBalance(cardId);
      expect(balance).toBeGreaterThan(0n);
      const merchantBefore = await m.balance();
      const refused = await m.postCardOrder('WITHDRAW', cardId, m.text(balance + 1n));
      expectError(refused, 422, 'INSUFFICIENT_CARD_BALANCE');
      expect(await m.cardBalance(cardId)).toBe(balance);
      const all = await m.completed('WITHDRAW', cardId, balance);
      expect(await m.cardBalance(cardId)).toBe(0n);
      expect(await m.balance()).toBe(merchantBefore + balance);
      expect((await m.feeOf(all.orderNo)).status).toBe('COMPLETED');
      await m.completed('DEPOSIT', cardId, m.minor(everyday.minLoadAmount));
    });

    it.each(Object.keys(CARD_ORDER_PATHS) as CardOrderKind[])(
      '%s on an unknown card answers 404 CARD_NOT_FOUND',
      async (kind) => {
        const before = await m.balance();
        const amount = kind === 'DEPOSIT' || kind === 'WITHDRAW' ? m.text(1n) : undefined;
        const response = await m.postCardOrder(kind, 'card_does_not_exist', amount);
        expectError(response, 404, 'CARD_NOT_FOUND');
        expect(await m.balance()).toBe(before);
      },
    );

    it.each(Object.keys(CARD_ORDER_PATHS) as CardOrderKind[])(
      "%s on another merchant's card answers 404 CARD_NOT_FOUND and leaves that card alone",
      async (kind) => {
        const other = new MerchantSession(t, merchant === 0 ? 1 : 0);
        const foreign = await other.cardIn(kind === 'UNFREEZE' ? 'FROZEN' : 'ACTIVE');
        const foreignBefore = await other.card(foreign);
        const otherBalance = await other.balance();
        const before = await m.balance();
        const amount = kind === 'DEPOSIT' || kind === 'WITHDRAW' ? m.text(1n) : undefined;
        const response = await m.postCardOrder(kind, foreign, amount);
        expectError(response, 404, 'CARD_NOT_FOUND');
        expect(await other.card(foreign)).toEqual(foreignBefore);
        expect(await m.balance()).toBe(before);
        expect(await other.balance()).toBe(otherBalance);
      },
    );

    describe.each(['ISSUE', 'DEPOSIT', 'WITHDRAW'] as const)('amount text of %s', (kind) => {
      const post = (amount: unknown) =>
        kind === 'ISSUE'
          ? m.postIssue({ offeringId: everyday.id, amount, merchantOrderNo: orderNo('issue') })
          : m.api.post(CARD_ORDER_PATHS[kind], {
              cardId,
              amount,
              merchantOrderNo: orderNo(kind),
            });

      it.each([...(TOO_PRECISE[currency] ?? []), ...MALFORMED])(
        '%j answers 400 VALIDATION_FAILED and moves no money',
        async (amount) => {
          const before = await m.balance();
          const cardBefore = await m.cardBalance(cardId);
          expectError(await post(amount), 400, 'VALIDATION_FAILED');
          expect(await m.balance()).toBe(before);
          expect(await m.cardBalance(cardId)).toBe(cardBefore);
        },
      );

      it('a JSON number instead of text answers 400 VALIDATION_FAILED', async () => {
        expectError(await post(20), 400, 'VALIDATION_FAILED');
      });
    });

    it.each([
      ['DEPOSIT', '0'],
      ['WITHDRAW', '0'],
      ['DEPOSIT', currency === 'USD' ? '0.00' : '000'],
      ['WITHDRAW', currency === 'USD' ? '0.00' : '000'],
    ] as const)('a zero %s amount %j answers 400 VALIDATION_FAILED', async (kind, amount) => {
      const before = await m.balance();
      expectError(await m.postCardOrder(kind, cardId, amount), 400, 'VALIDATION_FAILED');
      expect(await m.balance()).toBe(before);
    });

    it.each([
      ['no cardId', { cardId: undefined, amount: '10' }],
      ['no merchantOrderNo', { amount: '10', merchantOrderNo: undefined }],
      ['an empty merchantOrderNo', { amount: '10', merchantOrderNo: '' }],
      ['a merchantOrderNo with a space', { amount: '10', merchantOrderNo: 'a b' }],
      ['a merchantOrderNo of 65 characters', { amount: '10', merchantOrderNo: 'x'.repeat(65) }],
      ['an unknown property', { amount: '10', note: 'hello' }],
      ['no amount', { amount: undefined }],
      ['a numeric merchantOrderNo', { amount: '10', merchantOrderNo: 12345 }],
      ['a numeric cardId', { cardId: 12345, amount: '10' }],
      ['an array as amount', { amount: ['10'] }],
    ])('a DEPOSIT with %s answers 400 VALIDATION_FAILED', async (_, fields) => {
      const before = await m.balance();
      const response = await m.api.post('/cards/deposit', {
        cardId,
        merchantOrderNo: orderNo('deposit'),
        ...fields,
      });
      expectError(response, 400, 'VALIDATION_FAILED');
      expect(await m.balance()).toBe(before);
    });

    describe('on a merchant with too little balance', () => {
      let d: MerchantSession;
      let offering: WireOffering;
      let card: string;
      let rest: bigint;
      beforeAll(async () => {
        d = new MerchantSession(t, drained);
        offering = await d.everydayOffering();
        card = (await d.activeCard(offering)).cardId;
        // Leave exactly five times the minimum load: within the offering's bounds.
        rest = d.minor(offering.minLoadAmount) * 5n;
        await d.completed('DEPOSIT', card, (await d.balance()) - rest);
        expect(await d.balance()).toBe(rest);
      });

      it('an ISSUE of one minor unit more than the balance answers 422 INSUFFICIENT_BALANCE', async () => {
        const cardsBefore = await d.allCards();
        const response = await d.postIssue({
          offeringId: offering.id,
          amount: d.text(rest + 1n),
          merchantOrderNo: orderNo('issue'),
        });
        expectError(response, 422, 'INSUFFICIENT_BALANCE');
        expect(await d.balance()).toBe(rest);
        expect(await d.allCards()).toEqual(cardsBefore);
      });

      it('a DEPOSIT of one minor unit more than the balance answers 422 INSUFFICIENT_BALANCE', async () => {
        const cardBefore = await d.cardBalance(card);
        const response = await d.postCardOrder('DEPOSIT', card, d.text(rest + 1n));
        expectError(response, 422, 'INSUFFICIENT_BALANCE');
        expect(await d.balance()).toBe(rest);
        expect(await d.cardBalance(card)).toBe(cardBefore);
      });

      it('a DEPOSIT of exactly the balance is accepted, then any ISSUE is refused', async () => {
        await d.order('DEPOSIT', card, rest);
        expect(await d.balance()).toBe(0n);
        const response = await d.postIssue({
          offeringId: offering.id,
          amount: offering.minLoadAmount,
          merchantOrderNo: orderNo('issue'),
        });
        expectError(response, 422, 'INSUFFICIENT_BALANCE');
        expectError(
          await d.postCardOrder('DEPOSIT', card, d.text(1n)),
          422,
          'INSUFFICIENT_BALANCE',
        );
        expect(await d.balance()).toBe(0n);
      });

      it('an ISSUE of exactly the balance is accepted after a top-up', async () => {
        const topUp = await t.control.post(`/_control/merchants/${d.merchantId}/top-up`, {
          amount: d.text(rest),
        });
        expect(topUp.status).toBe(200);
        expect(await d.balance()).toBe(rest);
        await d.issue(offering, rest);
        expect(await d.balance()).toBe(0n);
      });
    });
  });
});
