import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depositFee, findAmount, percentFraction } from '../support/decimal-text.js';
import { MerchantSession, type WireOffering } from '../support/merchant-session.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** A percentage written as text that means zero ("0", "0.00"). */
const isZeroPercent = (percent: string) => /^0+(\.0+)?$/.test(percent);

const CURRENCIES = [
  // A deposit base amount in minor units: 123.45 USD, 12345 JPY.
  { currency: 'USD', merchant: 0, base: 12_345n },
  { currency: 'JPY', merchant: 1, base: 12_345n },
] as const;

describe.each(CURRENCIES)(
  'the ledger in $currency (reference-model section 3)',
  ({ currency, merchant, base }) => {
    let t: TestSandbox;
    let m: MerchantSession;
    let everyday: WireOffering;
    let free: WireOffering;
    beforeAll(async () => {
      t = await startTestSandbox({ currencies: ['USD', 'JPY'] });
      m = new MerchantSession(t, merchant);
      expect(m.currency).toBe(currency);
      everyday = await m.offering(
        (o) =>
          !o.requiresHolder &&
          m.minor(o.issuanceFee) > 0n &&
          !isZeroPercent(o.depositFeePercent) &&
          o.currency === currency,
      );
      free = await m.offering(
        (o) =>
          !o.requiresHolder && m.minor(o.issuanceFee) === 0n && isZeroPercent(o.depositFeePercent),
      );
    });
    afterAll(async () => t.close());

    /** An ACTIVE card of `everyday` with `load` issued, and its balance after the issuance fee. */
    async function loadedCard(load = m.minor(everyday.minLoadAmount) * 4n) {
      const placed = await m.issue(everyday, load);
      await m.process(placed.orderNo, 'success');
      const balance = await m.cardBalance(placed.cardId);
      expect(balance).toBe(load - m.minor(everyday.issuanceFee));
      return { cardId: placed.cardId, balance };
    }

    it('ISSUE takes A from the merchant at acceptance and credits the card A − issuanceFee at completion, with one COMPLETED FEE of the issuance fee', async () => {
      const load = m.minor(everyday.minLoadAmount) * 3n + 7n;
      const fee = m.minor(everyday.issuanceFee);
      const before = await m.balance();
      const placed = await m.issue(everyday, load);
      expect(await m.balance()).toBe(before - load);
      const pending = await m.card(placed.cardId);
      expect(pending.status).toBe('PENDING');
      expect(m.minor(pending.balance)).toBe(0n);
      expect(await m.recordsOf(placed.orderNo)).toEqual([]);

      await m.process(placed.orderNo);
      const card = await m.card(placed.cardId);
      expect(card.status).toBe('ACTIVE');
      expect(card.currency).toBe(currency);
      expect(m.minor(card.balance)).toBe(load - fee);
      expect(await m.balance()).toBe(before - load);
      const record = await m.feeOf(placed.orderNo);
      expect(record).toMatchObject({
        cardId: placed.cardId,
        type: 'FEE',
        status: 'COMPLETED',
        tradeNo: placed.orderNo,
        currency,
      });
      expect(m.minor(record.amount)).toBe(fee);
      expect(await m.transactions({ cardId: placed.cardId })).toEqual([record]);
    });

    it('a failed ISSUE gives A back to the merchant, leaves the card FAILED at 0 and one DECLINED FEE', async () => {
      const load = m.minor(everyday.minLoadAmount) * 2n;
      const before = await m.balance();
      const placed = await m.issue(everyday, load);
      expect(await m.balance()).toBe(before - load);
      await m.process(placed.orderNo, 'failure');
      expect(await m.balance()).toBe(before);
      const card = await m.card(placed.cardId);
      expect(card.status).toBe('FAILED');
      expect(m.minor(card.balance)).toBe(0n);
      const record = await m.feeOf(placed.orderNo);
      expect(record).toMatchObject({ cardId: placed.cardId, status: 'DECLINED', currency });
    });

    it('an ISSUE of a fee-free offering still leaves one COMPLETED FEE of amount 0', async () => {
      const load = m.minor(free.minLoadAmount) * 5n;
      const placed = await m.issue(free, load);
      await m.process(placed.orderNo);
      expect(await m.cardBalance(placed.cardId)).toBe(load);
      const record = await m.feeOf(placed.orderNo);
      expect(record.status).toBe('COMPLETED');
      expect(m.minor(record.amount)).toBe(0n);
    });

    it.each([
      ['below half a minor unit', 'below-half'],
      ['above half a minor unit', 'above-half'],
      ['exactly half a minor unit (rounds up)', 'tie'],
    ] as const)(
      'DEPOSIT with a fee fraction %s: merchant −D at acceptance, card +D − fee at completion',
      async (_, wanted) => {
        const percent = everyday.depositFeePercent;
        const amount = findAmount(percent, base, wanted);
        if (amount === undefined) throw new Error(`no ${wanted} amount for ${percent}%`);
        const { numerator, denominator } = percentFraction(amount, percent);
        const truncated = numerator / denominator;
        const expectedFee = wanted === 'below-half' ? truncated : truncated + 1n;
        if (wanted === 'tie') expect(2n * (numerator % denominator)).toBe(denominator);
        expect(depositFee(amount, percent)).toBe(expectedFee);

        const { cardId, balance } = await loadedCard();
        const before = await m.balance();
        const deposit = await m.order('DEPOSIT', cardId, amount);
        expect(await m.balance()).toBe(before - amount);
        expect(await m.cardBalance(cardId)).toBe(balance);
        expect(await m.recordsOf(deposit.orderNo)).toEqual([]);

        await m.process(deposit.orderNo);
        expect(await m.balance()).toBe(before - amount);
        expect(await m.cardBalance(cardId)).toBe(balance + amount - expectedFee);
        const record = await m.feeOf(deposit.orderNo);
        expect(record).toMatchObject({ cardId, status: 'COMPLETED', tradeNo: deposit.orderNo });
        expect(m.minor(record.amount)).toBe(expectedFee);
      },
    );

    it('a DEPOSIT on a 0% offering credits D in full and still leaves a COMPLETED FEE of amount 0', async () => {
      const placed = await m.issue(free, m.minor(free.minLoadAmount));
      await m.process(placed.orderNo);
      const cardBefore = await m.cardBalance(placed.cardId);
      const amount = base + 1n;
      const before = await m.balance();
      const deposit = await m.completed('DEPOSIT', placed.cardId, amount);
      expect(await m.balance()).toBe(before - amount);
      expect(await m.cardBalance(placed.cardId)).toBe(cardBefore + amount);
      const record = await m.feeOf(deposit.orderNo);
      expect(record.status).toBe('COMPLETED');
      expect(m.minor(record.amount)).toBe(0n);
    });

    it('a failed DEPOSIT gives D back to the merchant, leaves the card alone and one DECLINED FEE', async () => {
      const { cardId, balance } = await loadedCard();
      const before = await m.balance();
      const deposit = await m.order('DEPOSIT', cardId, base);
      expect(await m.balance()).toBe(before - base);
      await m.process(deposit.orderNo, 'failure');
      expect(await m.balance()).toBe(before);
      expect(await m.cardBalance(cardId)).toBe(balance);
      expect((await m.feeOf(deposit.orderNo)).status).toBe('DECLINED');
    });

    it('WITHDRAW moves nothing at acceptance; at completion the merchant gets +W, the card −W and a COMPLETED FEE of 0', async () => {
      const { cardId, balance } = await loadedCard();
      const amount = balance / 3n;
      const before = await m.balance();
      const withdraw = await m.order('WITHDRAW', cardId, amount);
      expect(await m.balance()).toBe(before);
      expect(await m.cardBalance(cardId)).toBe(balance);
      await m.process(withdraw.orderNo);
      expect(await m.balance()).toBe(before + amount);
      expect(await m.cardBalance(cardId)).toBe(balance - amount);
      const record = await m.feeOf(withdraw.orderNo);
      expect(record).toMatchObject({ cardId, status: 'COMPLETED', tradeNo: withdraw.orderNo });
      expect(m.minor(record.amount)).toBe(0n);
    });

    it('a failed WITHDRAW moves no money and leaves one DECLINED FEE', async () => {
      const { cardId, balance } = await loadedCard();
      const before = await m.balance();
      const withdraw = await m.order('WITHDRAW', cardId, balance);
      await m.process(withdraw.orderNo, 'failure');
      expect(await m.balance()).toBe(before);
      expect(await m.cardBalance(cardId)).toBe(balance);
      expect((await m.feeOf(withdraw.orderNo)).status).toBe('DECLINED');
    });

    it('CANCEL gives the merchant the remaining card balance at completion and leaves the card CANCELLED at 0 with one COMPLETED FEE of 0', async () => {
      const { cardId, balance } = await loadedCard();
      const extra = base;
      await m.completed('DEPOSIT', cardId, extra);
      const remaining = balance + extra - depositFee(extra, everyday.depositFeePercent);
      expect(await m.cardBalance(cardId)).toBe(remaining);
      const before = await m.balance();
      const cancel = await m.order('CANCEL', cardId);
      expect(await m.balance()).toBe(before);
      expect(await m.cardBalance(cardId)).toBe(remaining);
      await m.process(cancel.orderNo);
      expect(await m.balance()).toBe(before + remaining);
      const card = await m.card(cardId);
      expect(card.status).toBe('CANCELLED');
      expect(m.minor(card.balance)).toBe(0n);
      const record = await m.feeOf(cancel.orderNo);
      expect(record).toMatchObject({ cardId, type: 'FEE', status: 'COMPLETED' });
      expect(m.minor(record.amount)).toBe(0n);
    });

    it('FREEZE and UNFREEZE leave no FEE record and move no money', async () => {
      const { cardId, balance } = await loadedCard();
      const records = await m.transactions({ cardId });
      const before = await m.balance();
      const freeze = await m.completed('FREEZE', cardId);
      const unfreeze = await m.completed('UNFREEZE', cardId);
      expect(await m.cardStatus(cardId)).toBe('ACTIVE');
      expect(await m.recordsOf(freeze.orderNo)).toEqual([]);
      expect(await m.recordsOf(unfreeze.orderNo)).toEqual([]);
      expect(await m.transactions({ cardId })).toEqual(records);
      expect(await m.balance()).toBe(before);
      expect(await m.cardBalance(cardId)).toBe(balance);
    });

    it('a card that went through every money order ends at ΣA + ΣD − ΣW − its fees', async () => {
      const load = m.minor(everyday.minLoadAmount) * 6n;
      const placed = await m.issue(everyday, load);
      await m.process(placed.orderNo);
      const deposits = [base, base * 2n + 1n];
      for (const amount of deposits) await m.completed('DEPOSIT', placed.cardId, amount);
      await m.completed('DEPOSIT', placed.cardId, base, 'failure');
      const withdrawn = base / 2n;
      await m.completed('WITHDRAW', placed.cardId, withdrawn);
      const fees =
        m.minor(everyday.issuanceFee) +
        deposits.reduce((sum, amount) => sum + depositFee(amount, everyday.depositFeePercent), 0n);
      const expected = load + deposits.reduce((sum, d) => sum + d, 0n) - withdrawn - fees;
      expect(await m.cardBalance(placed.cardId)).toBe(expected);
      const feeTotal = (await m.transactions({ cardId: placed.cardId, type: 'FEE' }))
        .filter((r) => r.status === 'COMPLETED')
        .reduce((sum, r) => sum + m.minor(r.amount), 0n);
      expect(feeTotal).toBe(fees);
    });
  },
);
