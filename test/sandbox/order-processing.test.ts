import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantSession } from '../support/merchant-session.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** Read `probe` until `done` holds, for at most `timeoutMs`; returns the last value read. */
async function eventually<T>(
  probe: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() >= deadline) return value;
    await sleep(20);
  }
}

async function advance(t: TestSandbox, ms: number): Promise<void> {
  const response = await t.control.post('/_control/clock', { advanceMs: ms });
  expect(response.status).toBe(200);
}

describe('orders on a 60 s processing delay', () => {
  const DELAY = 60_000;
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox({ processingDelayMs: DELAY });
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  it('an ISSUE stays PENDING until the service clock has moved 60000 ms, then the card is ACTIVE with its FEE dated at the due time', async () => {
    const offering = await m.everydayOffering();
    const load = m.minor(offering.minLoadAmount) * 2n;
    const placed = await m.issue(offering, load);
    const createdAt = Date.parse((await m.card(placed.cardId)).createdAt);
    // Short of the delay by more than the real time these requests can take.
    await advance(t, DELAY - 1_000);
    expect(await m.cardStatus(placed.cardId)).toBe('PENDING');
    expect(await m.recordsOf(placed.orderNo)).toEqual([]);
    await advance(t, 1_000);
    const card = await m.card(placed.cardId);
    expect(card.status).toBe('ACTIVE');
    expect(m.minor(card.balance)).toBe(load - m.minor(offering.issuanceFee));
    const fee = await m.feeOf(placed.orderNo);
    expect(Date.parse(fee.createdAt)).toBe(createdAt + DELAY);
  });

  it('FREEZE shows FREEZING until the delay has passed on the service clock, then FROZEN', async () => {
    const placed = await m.issue(await m.everydayOffering(), 50_00n);
    await advance(t, DELAY);
    expect(await m.cardStatus(placed.cardId)).toBe('ACTIVE');
    await m.order('FREEZE', placed.cardId);
    await advance(t, DELAY - 1_000);
    expect(await m.cardStatus(placed.cardId)).toBe('FREEZING');
    await advance(t, 1_000);
    expect(await m.cardStatus(placed.cardId)).toBe('FROZEN');
  });

  it('a DEPOSIT credits the card only once the delay has passed on the service clock', async () => {
    const offering = await m.offering((o) => !o.requiresHolder && o.depositFeePercent === '0');
    const placed = await m.issue(offering, m.minor(offering.minLoadAmount));
    await advance(t, DELAY);
    const balance = await m.cardBalance(placed.cardId);
    const deposit = await m.order('DEPOSIT', placed.cardId, 10_00n);
    await advance(t, DELAY - 1_000);
    expect(await m.cardBalance(placed.cardId)).toBe(balance);
    await advance(t, 1_000);
    expect(await m.cardBalance(placed.cardId)).toBe(balance + 10_00n);
    expect((await m.feeOf(deposit.orderNo)).status).toBe('COMPLETED');
  });
});

describe('orders on a 20 ms processing delay', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox({ processingDelayMs: 20 });
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  it('ISSUE, DEPOSIT, FREEZE, UNFREEZE and CANCEL complete by themselves', async () => {
    const offering = await m.everydayOffering();
    const load = m.minor(offering.minLoadAmount) * 3n;
    const placed = await m.issue(offering, load);
    const status = () => m.cardStatus(placed.cardId);
    expect(await eventually(status, (s) => s === 'ACTIVE')).toBe('ACTIVE');
    const issued = load - m.minor(offering.issuanceFee);
    expect(await m.cardBalance(placed.cardId)).toBe(issued);

    const deposit = await m.order('DEPOSIT', placed.cardId, 100_00n);
    const fee = await eventually(
      () => m.recordsOf(deposit.orderNo),
      (records) => records.length > 0,
    );
    expect(fee).toHaveLength(1);
    const depositFee = m.minor(fee[0]?.amount ?? 'missing');
    expect(await m.cardBalance(placed.cardId)).toBe(issued + 100_00n - depositFee);

    await m.order('FREEZE', placed.cardId);
    expect(await eventually(status, (s) => s === 'FROZEN')).toBe('FROZEN');
    await m.order('UNFREEZE', placed.cardId);
    expect(await eventually(status, (s) => s === 'ACTIVE')).toBe('ACTIVE');
    const before = await m.balance();
    const remaining = await m.cardBalance(placed.cardId);
    await m.order('CANCEL', placed.cardId);
    expect(await eventually(status, (s) => s === 'CANCELLED')).toBe('CANCELLED');
    expect(await m.balance()).toBe(before + remaining);
  });
});

describe('orders processed only on demand (the test default)', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  it('an ISSUE stays PENDING however far the service clock moves until it is processed', async () => {
    const offering = await m.everydayOffering();
    const placed = await m.issue(offering, m.minor(offering.minLoadAmount));
    await advance(t, 7 * 24 * 3_600_000);
    expect(await m.cardStatus(placed.cardId)).toBe('PENDING');
    await m.process(placed.orderNo);
    expect(await m.cardStatus(placed.cardId)).toBe('ACTIVE');
  });
});

describe('a status order whose card the service blocked while it was pending', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  it('CANCEL fails with a DECLINED FEE: the card keeps its balance and the merchant gets nothing', async () => {
    const { cardId } = await m.activeCard();
    const remaining = await m.cardBalance(cardId);
    const before = await m.balance();
    const cancel = await m.order('CANCEL', cardId);
    await m.block(cardId);
    expect(await m.process(cancel.orderNo)).toBe('failure');
    expect(await m.cardStatus(cardId)).toBe('BLOCKED');
    expect(await m.cardBalance(cardId)).toBe(remaining);
    expect(await m.balance()).toBe(before);
    const fee = await m.feeOf(cancel.orderNo);
    expect([fee.status, fee.amount]).toEqual(['DECLINED', '0.00']);
  });

  it.each([
    ['FREEZE', 'ACTIVE'],
    ['UNFREEZE', 'FROZEN'],
  ] as const)('%s fails and leaves the card BLOCKED', async (kind, from) => {
    const cardId = await m.cardIn(from);
    const placed = await m.order(kind, cardId);
    await m.block(cardId);
    expect(await m.process(placed.orderNo)).toBe('failure');
    expect(await m.cardStatus(cardId)).toBe('BLOCKED');
  });
});

describe('a status order processed with a forced failure', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  it('is answered with the outcome it had: FREEZE, UNFREEZE and CANCEL still succeed, as the card and the FEE record show', async () => {
    const { cardId } = await m.activeCard();
    const remaining = await m.cardBalance(cardId);
    const freeze = await m.order('FREEZE', cardId);
    expect(await m.process(freeze.orderNo, 'failure')).toBe('success');
    expect(await m.cardStatus(cardId)).toBe('FROZEN');
    const unfreeze = await m.order('UNFREEZE', cardId);
    expect(await m.process(unfreeze.orderNo, 'failure')).toBe('success');
    expect(await m.cardStatus(cardId)).toBe('ACTIVE');
    const before = await m.balance();
    const cancel = await m.order('CANCEL', cardId);
    expect(await m.process(cancel.orderNo, 'failure')).toBe('success');
    expect(await m.cardStatus(cardId)).toBe('CANCELLED');
    expect(await m.balance()).toBe(before + remaining);
    expect((await m.feeOf(cancel.orderNo)).status).toBe('COMPLETED');
  });
});

describe('orders with failureRate 1', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox({ failureRate: 1 });
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  it('every ISSUE fails: the card is FAILED and the merchant gets the load back', async () => {
    const offering = await m.everydayOffering();
    const before = await m.balance();
    for (let i = 0; i < 3; i++) {
      const placed = await m.issue(offering, m.minor(offering.minLoadAmount) + BigInt(i));
      expect(await m.process(placed.orderNo)).toBe('failure');
      expect(await m.cardStatus(placed.cardId)).toBe('FAILED');
      expect((await m.feeOf(placed.orderNo)).status).toBe('DECLINED');
    }
    expect(await m.balance()).toBe(before);
  });

  it('every DEPOSIT and WITHDRAW fails and moves no money', async () => {
    const { cardId } = await m.activeCard();
    const card = await m.cardBalance(cardId);
    const before = await m.balance();
    for (let i = 1n; i <= 3n; i++) {
      const deposit = await m.order('DEPOSIT', cardId, 10_00n * i);
      expect(await m.process(deposit.orderNo)).toBe('failure');
      expect((await m.feeOf(deposit.orderNo)).status).toBe('DECLINED');
      const withdraw = await m.order('WITHDRAW', cardId, i);
      expect(await m.process(withdraw.orderNo)).toBe('failure');
      expect((await m.feeOf(withdraw.orderNo)).status).toBe('DECLINED');
    }
    expect(await m.balance()).toBe(before);
    expect(await m.cardBalance(cardId)).toBe(card);
  });

  it('FREEZE, UNFREEZE and CANCEL still succeed: they are not money orders', async () => {
    const { cardId } = await m.activeCard();
    const remaining = await m.cardBalance(cardId);
    await m.completed('FREEZE', cardId);
    expect(await m.cardStatus(cardId)).toBe('FROZEN');
    await m.completed('UNFREEZE', cardId);
    expect(await m.cardStatus(cardId)).toBe('ACTIVE');
    const before = await m.balance();
    const cancel = await m.completed('CANCEL', cardId);
    expect(await m.cardStatus(cardId)).toBe('CANCELLED');
    expect(await m.balance()).toBe(before + remaining);
    expect((await m.feeOf(cancel.orderNo)).status).toBe('COMPLETED');
  });
});
