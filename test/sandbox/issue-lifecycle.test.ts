import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

describe('issuing a card end to end', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox();
  });
  afterAll(async () => t.close());

  it('shows a PENDING card at once and an ACTIVE one with its fee after processing', async () => {
    const api = t.merchants[0]!;
    const offerings = await api.get('/merchants/offerings');
    const offering = offerings.body.data.find(
      (o: { requiresHolder: boolean }) => !o.requiresHolder,
    );
    const before = await api.get('/merchants/balance');
    const issued = await api.post('/cards', {
      offeringId: offering.id,
      amount: '100.00',
      merchantOrderNo: orderNo(),
    });
    expect(issued.status).toBe(201);
    const cards = await api.get('/cards');
    expect(cards.body.data).toHaveLength(1);
    expect(cards.body.data[0].status).toBe('PENDING');
    expect(cards.body.data[0].balance).toBe('0.00');
    const after = await api.get('/merchants/balance');
    expect(Number.parseInt(after.body.data.balance.replace('.', ''), 10)).toBe(
      Number.parseInt(before.body.data.balance.replace('.', ''), 10) - 10000,
    );
    const processed = await t.control.post('/_control/orders/process', {});
    expect(processed.status).toBe(200);
    expect(processed.body.processed).toEqual([
      { orderNo: issued.body.data.orderNo, kind: 'ISSUE', outcome: 'success' },
    ]);
    const card = await api.get('/cards/info', { query: { cardId: cards.body.data[0].cardId } });
    expect(card.body.data.status).toBe('ACTIVE');
    const txns = await api.get('/transactions');
    expect(txns.body.data).toHaveLength(1);
    expect(txns.body.data[0]).toMatchObject({
      type: 'FEE',
      status: 'COMPLETED',
      tradeNo: issued.body.data.orderNo,
    });
  });
});
