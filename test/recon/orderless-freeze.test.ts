import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import type { CardOrder } from '../../src/journal/card-order.js';
import { type OrderApi, OrderDesk, type OrderOutcome } from '../../src/journal/order-desk.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import type { SyncWorld } from '../support/sync-harness.js';
import { activeCards, control, failPendingOrder, startOrderWorld } from './support/desk-orders.js';
import { checkWorld } from './support/recon-world.js';

const HOUR = 3_600_000;

/**
 * Submit `order` through cardsync's order desk to an upstream that answers a FREEZE with a 2xx
 * and no body (the interface shows none for freeze, unfreeze and cancel): the desk journals it
 * ACCEPTED without orderNo.
 */
async function submitOrderless(w: SyncWorld, order: CardOrder): Promise<OrderOutcome> {
  const merchant = w.t.sandbox.merchants[0] as (typeof w.t.sandbox.merchants)[number];
  const mirror = w.openMirror();
  const client = new CardIssuingClient({
    baseUrl: w.t.sandbox.baseUrl,
    apiKey: merchant.apiKey,
    ca: w.t.sandbox.caPem,
  });
  const api: OrderApi = {
    issueCard: (body, options) => client.issueCard(body, options),
    deposit: (body, options) => client.deposit(body, options),
    withdraw: (body, options) => client.withdraw(body, options),
    unfreezeCard: (body, options) => client.unfreezeCard(body, options),
    cancelCard: (body, options) => client.cancelCard(body, options),
    freezeCard: async (body, options) => ({
      ...(await client.freezeCard(body, options)),
      orderNo: undefined,
      status: 204,
    }),
  };
  try {
    const desk = new OrderDesk({
      db: mirror.db,
      api,
      merchantId: merchant.merchantId,
      currency: merchant.currency,
      clock: () => new Date(w.t.sandbox.context.clock.now()),
    });
    return await desk.submit(order);
  } finally {
    await client.close();
    await mirror.close();
  }
}

/**
 * A FREEZE or UNFREEZE is judged by its card's status, not by a FEE record: one the upstream
 * accepted with no orderNo needs no link to be judged. Such a FREEZE that failed (its card read
 * ACTIVE more than grace after it) is ORDER_NOT_REFLECTED, identified by its merchantOrderNo;
 * one carried out (its card FROZEN) is no finding.
 */
describe('a FREEZE accepted without an orderNo', () => {
  let w: SyncWorld;
  let failedCard: string;
  let failedRef: string;
  let heldRef: string;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('orderless-freeze');
    const [heldCard, second] = (await activeCards(w, 2)) as [string, string];
    failedCard = second;

    const held = await submitOrderless(w, { kind: 'FREEZE', cardId: heldCard });
    expect([held.state, held.orderNo]).toEqual(['ACCEPTED', null]);
    heldRef = held.merchantOrderNo;
    const processed = await control(w, '/_control/orders/process', {});
    expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);

    const failed = await submitOrderless(w, { kind: 'FREEZE', cardId: failedCard });
    expect([failed.state, failed.orderNo]).toEqual(['ACCEPTED', null]);
    failedRef = failed.merchantOrderNo;
    await failPendingOrder(w, failedCard);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('reports the FREEZE that failed, by its merchantOrderNo', () => {
    expect(
      results.findings.map((f) => [
        f.check,
        f.cardId,
        f.orderNo,
        f.merchantOrderNo,
        f.expected,
        f.actual,
      ]),
    ).toEqual([['ORDER_NOT_REFLECTED', failedCard, null, failedRef, 'FROZEN', 'ACTIVE']]);
  });

  it('shows analysts in order_outcomes what the check judged: carried out, or still awaited', async () => {
    const mirror = w.openMirror();
    try {
      const outcomes = mirror.db
        .prepare(
          `SELECT merchant_order_no, outcome FROM order_outcomes
           WHERE merchant_order_no IN (?, ?) ORDER BY submitted_at`,
        )
        .raw()
        .all(heldRef, failedRef);
      expect(outcomes).toEqual([
        [heldRef, 'reflected'],
        [failedRef, 'awaiting_outcome'],
      ]);
    } finally {
      await mirror.close();
    }
  });
});
