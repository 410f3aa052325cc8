import { orderNo, type TestSandbox } from '../../support/test-sandbox.js';

interface Offering {
  readonly id: string;
  readonly maxLoadAmount: string;
  readonly requiresHolder: boolean;
}

/**
 * Issue a card for merchant `merchant` from its first offering that needs no holder, loaded with
 * that offering's maximum, and process the order so the card is ACTIVE.
 * @returns the card id and the order's numbers.
 */
export async function issueActiveCard(
  t: TestSandbox,
  merchant = 0,
): Promise<{ cardId: string; orderNo: string }> {
  const api = t.merchants[merchant];
  if (!api) throw new Error(`no merchant ${merchant}`);
  const offerings = (await api.get<{ data: Offering[] }>('/merchants/offerings')).body.data;
  const offering = offerings.find((o) => !o.requiresHolder);
  if (!offering) throw new Error('no offering without a holder');
  const issued = await api.post('/cards', {
    offeringId: offering.id,
    amount: offering.maxLoadAmount,
    merchantOrderNo: orderNo('card'),
  });
  if (issued.status !== 201) throw new Error(`issue: ${issued.status} ${issued.text}`);
  const number = issued.body.data.orderNo as string;
  await t.control.post('/_control/orders/process', { orderNo: number });
  // The order's FEE record carries the order number as its tradeNo and names the card.
  const fees = await api.get('/transactions', { query: { type: 'FEE', limit: 100 } });
  const fee = (fees.body.data as { tradeNo: string; cardId: string }[]).find(
    (row) => row.tradeNo === number,
  );
  if (!fee) throw new Error(`no FEE record for ${number}`);
  return { cardId: fee.cardId, orderNo: number };
}
