import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../support/api-client.js';
import { type CardOrderKind, MerchantSession } from '../support/merchant-session.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** Everything an order could change that the merchant can see. */
async function snapshot(m: MerchantSession) {
  return {
    balance: await m.balance(),
    cards: await m.allCards(),
    transactions: await m.transactions(),
  };
}

function expectReplayOf(replay: ApiResponse, original: ApiResponse): void {
  expect(replay.status).toBe(original.status);
  expect(replay.body).toEqual(original.body);
  expect(replay.headers['idempotent-replayed']).toBe('true');
}

describe('order idempotency by merchantOrderNo', () => {
  let t: TestSandbox;
  let a: MerchantSession;
  let b: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    a = new MerchantSession(t, 0);
    b = new MerchantSession(t, 1);
  });
  afterAll(async () => t.close());

  it('a repeated ISSUE answers 201 with the same orderNo and idempotent-replayed: true, and creates no second card nor moves money', async () => {
    const offering = await a.everydayOffering();
    const body = { offeringId: offering.id, amount: '25.00', merchantOrderNo: orderNo('issue') };
    const first = await a.postIssue(body);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await snapshot(a);
    const again = await a.postIssue(body);
    expect(again.status).toBe(201);
    expectReplayOf(again, first);
    expect(again.body.data).toEqual({
      orderNo: first.body.data.orderNo,
      merchantOrderNo: body.merchantOrderNo,
    });
    expect(await snapshot(a)).toEqual(before);
  });

  it('a repeated ISSUE after its outcome changes nothing and leaves a single FEE record', async () => {
    const offering = await a.everydayOffering();
    const body = { offeringId: offering.id, amount: '30.00', merchantOrderNo: orderNo('issue') };
    const first = await a.postIssue(body);
    await a.process(first.body.data.orderNo);
    const before = await snapshot(a);
    expectReplayOf(await a.postIssue(body), first);
    expect(await snapshot(a)).toEqual(before);
    expect(await a.recordsOf(first.body.data.orderNo)).toHaveLength(1);
    const reprocess = await t.control.post('/_control/orders/process', {
      orderNo: first.body.data.orderNo,
    });
    expect(reprocess.status).toBe(404);
  });

  it.each([
    ['FREEZE', 'ACTIVE'],
    ['UNFREEZE', 'FROZEN'],
    ['CANCEL', 'ACTIVE'],
    ['DEPOSIT', 'ACTIVE'],
    ['WITHDRAW', 'ACTIVE'],
  ] as const)('a repeated %s is replayed and places no second order', async (kind, from) => {
    const cardId = await a.cardIn(from);
    const amount = kind === 'DEPOSIT' || kind === 'WITHDRAW' ? '5.00' : undefined;
    const merchantOrderNo = orderNo(kind);
    const first = await a.postCardOrder(kind, cardId, amount, merchantOrderNo);
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const before = await snapshot(a);
    expectReplayOf(await a.postCardOrder(kind, cardId, amount, merchantOrderNo), first);
    expect(await snapshot(a)).toEqual(before);
    // One order was placed: processing it once leaves nothing pending under that number.
    await a.process(first.body.data.orderNo);
    const afterOutcome = await snapshot(a);
    expectReplayOf(await a.postCardOrder(kind, cardId, amount, merchantOrderNo), first);
    expect(await snapshot(a)).toEqual(afterOutcome);
  });

  it.each([
    ['10', '10.00'],
    ['10.00', '10'],
    ['10.5', '10.50'],
  ])('"%s" and "%s" are the same DEPOSIT amount for idempotency', async (firstText, againText) => {
    const { cardId } = await a.activeCard();
    const merchantOrderNo = orderNo('deposit');
    const first = await a.postCardOrder('DEPOSIT', cardId, firstText, merchantOrderNo);
    expect(first.status).toBe(201);
    const before = await snapshot(a);
    expectReplayOf(await a.postCardOrder('DEPOSIT', cardId, againText, merchantOrderNo), first);
    expect(await snapshot(a)).toEqual(before);
  });

  it('"10" and "10.00" are the same ISSUE amount for idempotency', async () => {
    const offering = await a.everydayOffering();
    const merchantOrderNo = orderNo('issue');
    const first = await a.postIssue({ offeringId: offering.id, amount: '10', merchantOrderNo });
    expect(first.status).toBe(201);
    const before = await snapshot(a);
    const again = await a.postIssue({ offeringId: offering.id, amount: '10.00', merchantOrderNo });
    expectReplayOf(again, first);
    expect(await snapshot(a)).toEqual(before);
  });

  it('the same merchantOrderNo with a different amount answers 409 DUPLICATE_ORDER, and the original still replays', async () => {
    const { cardId } = await a.activeCard();
    const merchantOrderNo = orderNo('deposit');
    const first = await a.postCardOrder('DEPOSIT', cardId, '5.00', merchantOrderNo);
    expect(first.status).toBe(201);
    const before = await snapshot(a);
    const changed = await a.postCardOrder('DEPOSIT', cardId, '5.01', merchantOrderNo);
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ statusCode: 409, code: 'DUPLICATE_ORDER' });
    expect(await snapshot(a)).toEqual(before);
    expectReplayOf(await a.postCardOrder('DEPOSIT', cardId, '5.00', merchantOrderNo), first);
  });

  it('the same merchantOrderNo for another card answers 409 DUPLICATE_ORDER', async () => {
    const first = await a.activeCard();
    const second = await a.activeCard();
    const merchantOrderNo = orderNo('freeze');
    expect((await a.postCardOrder('FREEZE', first.cardId, undefined, merchantOrderNo)).status).toBe(
      201,
    );
    const other = await a.postCardOrder('FREEZE', second.cardId, undefined, merchantOrderNo);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('DUPLICATE_ORDER');
    expect(await a.cardStatus(second.cardId)).toBe('ACTIVE');
  });

  it('the same merchantOrderNo with another offering or holder answers 409 DUPLICATE_ORDER', async () => {
    const offerings = (await a.offerings()).filter((o) => !o.requiresHolder);
    const [one, two] = offerings;
    if (!one || !two) throw new Error('need two offerings without a holder');
    const merchantOrderNo = orderNo('issue');
    const amount = '100.00';
    expect((await a.postIssue({ offeringId: one.id, amount, merchantOrderNo })).status).toBe(201);
    const before = await snapshot(a);
    const otherOffering = await a.postIssue({ offeringId: two.id, amount, merchantOrderNo });
    expect(otherOffering.status).toBe(409);
    expect(otherOffering.body.code).toBe('DUPLICATE_ORDER');
    const withHolder = await a.postIssue({
      offeringId: one.id,
      amount,
      merchantOrderNo,
      holderId: 'holder-1',
    });
    expect(withHolder.status).toBe(409);
    expect(withHolder.body.code).toBe('DUPLICATE_ORDER');
    expect(await snapshot(a)).toEqual(before);
  });

  it.each<[CardOrderKind, CardOrderKind]>([
    ['FREEZE', 'CANCEL'],
    ['DEPOSIT', 'WITHDRAW'],
    ['CANCEL', 'FREEZE'],
  ])('a merchantOrderNo used for %s answers 409 DUPLICATE_ORDER for %s', async (used, reused) => {
    const { cardId } = await a.activeCard();
    const merchantOrderNo = orderNo('shared');
    const amountOf = (kind: CardOrderKind) =>
      kind === 'DEPOSIT' || kind === 'WITHDRAW' ? '1.00' : undefined;
    const first = await a.postCardOrder(used, cardId, amountOf(used), merchantOrderNo);
    expect(first.status).toBe(201);
    const before = await snapshot(a);
    const again = await a.postCardOrder(reused, cardId, amountOf(reused), merchantOrderNo);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('DUPLICATE_ORDER');
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await snapshot(a)).toEqual(before);
  });

  it('a merchantOrderNo used for an ISSUE answers 409 DUPLICATE_ORDER for a DEPOSIT', async () => {
    const { cardId, merchantOrderNo } = await a.activeCard();
    const before = await snapshot(a);
    const deposit = await a.postCardOrder('DEPOSIT', cardId, '1.00', merchantOrderNo);
    expect(deposit.status).toBe(409);
    expect(deposit.body.code).toBe('DUPLICATE_ORDER');
    expect(await snapshot(a)).toEqual(before);
  });

  it.each([
    ['an invalid amount', { amount: 'abc' }],
    ['a missing amount', { amount: undefined }],
    ['too many digits', { amount: '1.001' }],
  ])('a 400 for %s is not remembered: the same merchantOrderNo then succeeds', async (_, bad) => {
    const offering = await a.everydayOffering();
    const merchantOrderNo = orderNo('issue');
    const refused = await a.postIssue({ offeringId: offering.id, merchantOrderNo, ...bad });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_FAILED');
    const accepted = await a.postIssue({
      offeringId: offering.id,
      amount: '20.00',
      merchantOrderNo,
    });
    expect(accepted.status).toBe(201);
    expect(accepted.headers['idempotent-replayed']).toBeUndefined();
    expectReplayOf(
      await a.postIssue({ offeringId: offering.id, amount: '20.00', merchantOrderNo }),
      accepted,
    );
  });

  it('an INSUFFICIENT_CARD_BALANCE refusal is remembered and replayed even after the card is funded', async () => {
    const { cardId } = await a.activeCard();
    const cardBalance = await a.cardBalance(cardId);
    const amount = a.text(cardBalance + 1n);
    const merchantOrderNo = orderNo('withdraw');
    const refused = await a.postCardOrder('WITHDRAW', cardId, amount, merchantOrderNo);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('INSUFFICIENT_CARD_BALANCE');
    expect(refused.headers['idempotent-replayed']).toBeUndefined();
    await a.completed('DEPOSIT', cardId, 100_00n);
    expect(await a.cardBalance(cardId)).toBeGreaterThan(cardBalance + 1n);
    const before = await snapshot(a);
    expectReplayOf(await a.postCardOrder('WITHDRAW', cardId, amount, merchantOrderNo), refused);
    expect(await snapshot(a)).toEqual(before);
  });

  it('an INVALID_CARD_STATE refusal is remembered and replayed after the card became ACTIVE', async () => {
    const offering = await a.everydayOffering();
    const issued = await a.issue(offering, a.minor(offering.minLoadAmount));
    const merchantOrderNo = orderNo('freeze');
    const refused = await a.postCardOrder('FREEZE', issued.cardId, undefined, merchantOrderNo);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('INVALID_CARD_STATE');
    await a.process(issued.orderNo);
    expect(await a.cardStatus(issued.cardId)).toBe('ACTIVE');
    expectReplayOf(
      await a.postCardOrder('FREEZE', issued.cardId, undefined, merchantOrderNo),
      refused,
    );
    expect(await a.cardStatus(issued.cardId)).toBe('ACTIVE');
  });

  it('a remembered refusal repeated with other parameters answers 409 DUPLICATE_ORDER', async () => {
    const { cardId } = await a.activeCard();
    const cardBalance = await a.cardBalance(cardId);
    const merchantOrderNo = orderNo('withdraw');
    const refused = await a.postCardOrder(
      'WITHDRAW',
      cardId,
      a.text(cardBalance + 1n),
      merchantOrderNo,
    );
    expect(refused.status).toBe(422);
    const smaller = await a.postCardOrder('WITHDRAW', cardId, a.text(1n), merchantOrderNo);
    expect(smaller.status).toBe(409);
    expect(smaller.body.code).toBe('DUPLICATE_ORDER');
    expect(await a.cardBalance(cardId)).toBe(cardBalance);
  });

  it('an OFFERING_NOT_FOUND refusal is remembered under its merchantOrderNo', async () => {
    const merchantOrderNo = orderNo('issue');
    const body = { offeringId: 'off_missing', amount: '20.00', merchantOrderNo };
    const refused = await a.postIssue(body);
    expect(refused.status).toBe(404);
    expect(refused.body.code).toBe('OFFERING_NOT_FOUND');
    expectReplayOf(await a.postIssue(body), refused);
  });

  it('merchantOrderNo is per merchant: merchant B may reuse the reference of merchant A', async () => {
    const merchantOrderNo = orderNo('shared');
    const offeringA = await a.everydayOffering();
    const offeringB = await b.everydayOffering();
    const balanceB = await b.balance();
    const fromA = await a.postIssue({ offeringId: offeringA.id, amount: '20.00', merchantOrderNo });
    expect(fromA.status).toBe(201);
    const fromB = await b.postIssue({ offeringId: offeringB.id, amount: '40.00', merchantOrderNo });
    expect(fromB.status).toBe(201);
    expect(fromB.headers['idempotent-replayed']).toBeUndefined();
    expect(fromB.body.data.orderNo).not.toBe(fromA.body.data.orderNo);
    expect(await b.balance()).toBe(balanceB - 40_00n);
    expectReplayOf(
      await a.postIssue({ offeringId: offeringA.id, amount: '20.00', merchantOrderNo }),
      fromA,
    );
  });
});
