import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordTransaction } from '../../src/sandbox/activity/card-activity.js';
import { MovableClock } from '../../src/sandbox/clock.js';
import { MerchantSession } from '../support/merchant-session.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

describe('due events, looked for before every request', () => {
  let t: TestSandbox;
  let m: MerchantSession;
  beforeAll(async () => {
    t = await startTestSandbox();
    m = new MerchantSession(t, 0);
  });
  afterAll(async () => t.close());

  /** Whether GET /transactions lists the transaction on its card. */
  async function listed(cardId: string, transactionId: string): Promise<boolean> {
    return (await m.transactions({ cardId })).some((x) => x.transactionId === transactionId);
  }

  it('a late posting written after the last look, with no timer armed for it, is posted by the next request once due', async () => {
    const { cardId } = await m.activeCard();
    const ctx = t.sandbox.context;
    // Requests with nothing due: the service has looked, and found no event ahead.
    expect(await m.transactions({ cardId })).toBeDefined();
    expect(await m.transactions({ cardId })).toBeDefined();
    // A write that adds an event without telling the timer (as a store write may).
    const now = ctx.clock.now();
    const late = ctx.store.atomically(() =>
      recordTransaction(ctx, {
        cardId,
        type: 'PURCHASE',
        status: 'COMPLETED',
        amountMinor: 1_00,
        feeMinor: 0,
        currency: 'USD',
        merchantName: 'Late shop',
        tradeNo: 'trd-late-unarmed',
        createdAt: now,
        visibleAt: now + 30,
      }),
    );
    expect(late.posted).toBe(false);
    await sleep(60);
    expect(await listed(cardId, late.transactionId)).toBe(true);
  });

  it('an event due later is applied by the first request after its time, with nothing written in between', async () => {
    const { cardId } = await m.activeCard();
    const ctx = t.sandbox.context;
    const now = ctx.clock.now();
    const response = await t.control.post(`/_control/cards/${cardId}/transactions`, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '2.00',
      createdAt: new Date(now).toISOString(),
      visibleAt: new Date(now + 60_000).toISOString(),
    });
    expect(response.status, response.text).toBe(201);
    const transactionId = response.body.data.transactionId as string;
    expect(await listed(cardId, transactionId)).toBe(false);
    // The clock moved without a request through the control surface's own look: only the
    // offset changes, as if a minute had passed.
    const clock = ctx.clock;
    if (!(clock instanceof MovableClock)) throw new Error('the test sandbox has a movable clock');
    clock.advance(60_001);
    expect(await listed(cardId, transactionId)).toBe(true);
  });
});
