import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Card, MerchantBalance, Offering } from '../../src/contract/index.js';
import type { ApiClient } from '../support/api-client.js';
import { minorOf, textOf } from '../support/decimal-text.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { activeCard, allTransactions, offeringsOf } from '../support/wire-fixtures.js';

/** An amount with exactly the currency's exponent digits (reference-model section 1). */
const AMOUNT_PATTERN: Readonly<Record<string, RegExp>> = {
  USD: /^\d+\.\d{2}$/,
  JPY: /^\d+$/,
};
const EXPONENT: Readonly<Record<string, number>> = { USD: 2, JPY: 0 };

describe('GET /merchants/balance and /merchants/offerings', () => {
  let t: TestSandbox;
  const client = (index: number) => t.merchants[index] as ApiClient;

  beforeAll(async () => {
    // Merchant 0 is in USD (2 digits), merchant 1 in JPY (0 digits).
    t = await startTestSandbox({ currencies: ['USD', 'JPY'] });
  });
  afterAll(async () => t.close());

  it('announces the merchants in the currencies they were started with', () => {
    expect(t.sandbox.merchants.map((m) => m.currency)).toEqual(['USD', 'JPY']);
  });

  for (const index of [0, 1]) {
    const currency = index === 0 ? 'USD' : 'JPY';

    describe(`${currency} merchant`, () => {
      it('answers a non-zero balance in its own currency with exactly its exponent digits', async () => {
        const response = await client(index).get<{ data: MerchantBalance }>('/merchants/balance');
        expect(response.status).toBe(200);
        expect(Object.keys(response.body.data).sort()).toEqual(['balance', 'currency']);
        expect(response.body.data.currency).toBe(currency);
        expect(response.body.data.balance).toMatch(AMOUNT_PATTERN[currency] as RegExp);
        expect(minorOf(response.body.data.balance, EXPONENT[currency] ?? 0)).toBeGreaterThan(0n);
        expect(typeof response.body.data.balance).toBe('string');
      });

      it('lists offerings in its currency, every amount with exactly the exponent digits', async () => {
        const offerings = await offeringsOf(client(index));
        expect(offerings.length).toBeGreaterThan(0);
        const pattern = AMOUNT_PATTERN[currency] as RegExp;
        for (const o of offerings) {
          expect(o.currency).toBe(currency);
          for (const amount of [o.minLoadAmount, o.maxLoadAmount, o.issuanceFee]) {
            expect(typeof amount).toBe('string');
            expect(amount).toMatch(pattern);
          }
          expect(o.depositFeePercent).toMatch(/^\d+(\.\d+)?$/);
          const exponent = EXPONENT[currency] ?? 0;
          expect(minorOf(o.minLoadAmount, exponent)).toBeLessThanOrEqual(
            minorOf(o.maxLoadAmount, exponent),
          );
          expect(minorOf(o.minLoadAmount, exponent)).toBeGreaterThan(0n);
          expect(o.id).not.toBe('');
          expect(o.name).not.toBe('');
          expect(o.network).not.toBe('');
          expect(o.type).not.toBe('');
        }
      });

      it('offers a varied catalogue: with and without holder, differing limits and fees', async () => {
        const offerings = await offeringsOf(client(index));
        expect(offerings.length).toBeGreaterThanOrEqual(2);
        expect(offerings.some((o) => o.requiresHolder)).toBe(true);
        expect(offerings.some((o) => !o.requiresHolder)).toBe(true);
        expect(new Set(offerings.map((o) => o.id)).size).toBe(offerings.length);
        expect(new Set(offerings.map((o) => o.name)).size).toBe(offerings.length);
        expect(new Set(offerings.map((o) => o.minLoadAmount)).size).toBeGreaterThan(1);
        expect(new Set(offerings.map((o) => o.issuanceFee)).size).toBeGreaterThan(1);
        expect(new Set(offerings.map((o) => o.depositFeePercent)).size).toBeGreaterThan(1);
      });
    });
  }

  it('gives each merchant its own offerings (no id shared between merchants)', async () => {
    const usdIds = new Set((await offeringsOf(client(0))).map((o) => o.id));
    const jpy = await offeringsOf(client(1));
    expect(jpy.some((o) => usdIds.has(o.id))).toBe(false);
  });

  for (const index of [0, 1]) {
    const currency = index === 0 ? 'USD' : 'JPY';
    it(`writes ${currency} card balances and fees with exactly its exponent digits`, async () => {
      const api = client(index);
      const exponent = EXPONENT[currency] ?? 0;
      const offering = (await offeringsOf(api)).find(
        (o) => !o.requiresHolder && minorOf(o.issuanceFee, exponent) > 0n,
      ) as Offering;
      const before = await api.get<{ data: MerchantBalance }>('/merchants/balance');
      const load = minorOf(offering.minLoadAmount, exponent) * 3n;
      const issued = await activeCard(api, t.control, offering, textOf(load, exponent));

      const card = await api.get<{ data: Card }>('/cards/info', {
        query: { cardId: issued.cardId },
      });
      const fee = minorOf(offering.issuanceFee, exponent);
      expect(card.body.data.currency).toBe(currency);
      expect(card.body.data.balance).toMatch(AMOUNT_PATTERN[currency] as RegExp);
      expect(card.body.data.balance).toBe(textOf(load - fee, exponent));

      const records = await allTransactions(api, { cardId: issued.cardId });
      expect(records).toHaveLength(1);
      expect(records[0]?.amount).toBe(offering.issuanceFee);
      expect(records[0]?.fee).toMatch(AMOUNT_PATTERN[currency] as RegExp);
      expect(minorOf(records[0]?.fee ?? '', exponent)).toBe(0n);

      const after = await api.get<{ data: MerchantBalance }>('/merchants/balance');
      expect(after.body.data.balance).toBe(
        textOf(minorOf(before.body.data.balance, exponent) - load, exponent),
      );
    });
  }
});
