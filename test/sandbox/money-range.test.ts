import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantSession } from '../support/merchant-session.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** The most minor units a JavaScript number counts exactly (2^53 − 1). */
const MAX = 9_007_199_254_740_991n;

describe('money past 2^53 minor units (refused, never rounded)', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox({ merchants: 1, currencies: ['USD'] });
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  /** The money the merchant holds: its balance and what its cards hold. */
  const held = async () =>
    (await m.balance()) +
    (await m.allCards()).reduce(
      (sum, c) => sum + (m.minor(c.balance) > 0n ? m.minor(c.balance) : 0n),
      0n,
    );

  const topUp = (amount: bigint) =>
    t.control.post(`/_control/merchants/${m.merchantId}/top-up`, { amount: m.text(amount) });

  it('refuses a top-up past 2^53 − 1 minor units of held money with 400, changing nothing', async () => {
    const before = await m.balance();
    const room = MAX - (await held());
    const refused = await topUp(room + 1n);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await m.balance()).toBe(before);
    const taken = await topUp(room);
    expect(taken.status, taken.text).toBe(200);
    expect(m.minor(taken.body.balance)).toBe(before + room);
    expect(await held()).toBe(MAX);
  });

  it('counts what the cards hold, so moving money to a card makes no room', async () => {
    const offering = await m.offering((o) => !o.requiresHolder);
    const { cardId } = await m.activeCard(offering);
    const deposit = await m.postCardOrder(
      'DEPOSIT',
      cardId,
      m.text(await m.balance()),
      orderNo('dep'),
    );
    expect(deposit.status, deposit.text).toBe(201);
    // The deposit is on its way (accepted, not processed): it still counts.
    expect((await topUp(MAX - (await held()) + 1n)).status).toBe(400);
    await m.process(deposit.body.data.orderNo, 'success');
    const room = MAX - (await held());
    expect((await topUp(room + 1n)).status).toBe(400);
    expect(await m.cardBalance(cardId)).toBeLessThanOrEqual(MAX);
    expect((await m.api.get('/cards', { query: { limit: 100 } })).status).toBe(200);
  });
});

describe('an unjournaled debit past −(2^53 − 1) minor units (refused, never rounded)', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    // JPY: a request amount of 15 digits is close to 10^15 minor units, so ten debits suffice.
    t = await startTestSandbox({ merchants: 1, currencies: ['JPY'] });
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  const debit = (amount: bigint) =>
    t.control.post(`/_control/merchants/${m.merchantId}/unjournaled-movement`, {
      amount: m.text(amount),
    });

  it('refuses a debit that would take the balance below −(2^53 − 1) with 400, changing nothing', async () => {
    const step = 999_999_999_999_999n;
    for (let i = 0; i < 9; i++) expect((await debit(step)).status).toBe(201);
    const before = await m.balance();
    const room = before + MAX;
    const refused = await debit(room + 1n);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await m.balance()).toBe(before);
    expect((await debit(room)).status).toBe(201);
    expect(await m.balance()).toBe(-MAX);
  });
});
