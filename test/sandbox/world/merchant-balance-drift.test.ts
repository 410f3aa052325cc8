import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';

function minor(text: string): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt(`${whole}${fraction}`);
}

describe('planting a merchant balance mismatch between two syncs', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ merchants: 2, currencies: ['USD', 'JPY'] });
  });
  afterAll(async () => t.close());

  it.each([
    [0, '12.34', 1234n],
    [1, '1234', 1234n],
  ])(
    'moves merchant %i by %s with no journal entry and answers with the finding to expect',
    async (index, amount, moved) => {
      const api = t.merchants[index]!;
      const merchantId = t.sandbox.merchants[index]!.merchantId;
      const before = minor((await api.get('/merchants/balance')).body.data.balance);
      const planted = await t.control.post(
        `/_control/merchants/${merchantId}/unjournaled-movement`,
        { amount },
      );
      expect(planted.status).toBe(201);
      expect(planted.body.finding).toMatchObject({
        check: 'MERCHANT_BALANCE_MISMATCH',
        merchantId,
      });
      const after = minor((await api.get('/merchants/balance')).body.data.balance);
      // No order was placed between the two reads, so the journal explains a change of 0.
      expect(after - before).toBe(-moved);
      const credited = await t.control.post(
        `/_control/merchants/${merchantId}/unjournaled-movement`,
        { amount, direction: 'credit' },
      );
      expect(credited.status).toBe(201);
      expect(minor((await api.get('/merchants/balance')).body.data.balance)).toBe(before);
    },
  );

  it('refuses an amount with more digits than the currency has', async () => {
    const merchantId = t.sandbox.merchants[1]!.merchantId;
    const refused = await t.control.post(`/_control/merchants/${merchantId}/unjournaled-movement`, {
      amount: '1.5',
    });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
  });
});
