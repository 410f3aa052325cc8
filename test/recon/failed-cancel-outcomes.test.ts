import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import type { SyncWorld } from '../support/sync-harness.js';
import {
  activeCards,
  control,
  failPendingOrder,
  startOrderWorld,
  submitThroughDesk,
} from './support/desk-orders.js';
import { checkWorld } from './support/recon-world.js';

const HOUR = 3_600_000;

/**
 * A FREEZE that failed, then a CANCEL that failed too (the service blocked the card while each
 * was pending, then unblocked it): the card is ACTIVE, the CANCEL's FEE record DECLINED.
 * ORDER_NOT_REFLECTED reports the FREEZE (a CANCEL that failed settles nothing), and the
 * analysts' order_outcomes awaits it, as example 10 lists it.
 */
describe('a FREEZE that failed, followed by a CANCEL that failed', () => {
  let w: SyncWorld;
  let freeze: { merchantOrderNo: string; orderNo: string | null };
  let cancel: { merchantOrderNo: string; orderNo: string | null };
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('failed-cancel-outcomes');
    const [cardId] = (await activeCards(w, 1)) as [string];
    freeze = await submitThroughDesk(w, { kind: 'FREEZE', cardId });
    await failPendingOrder(w, cardId);
    await control(w, '/_control/clock', { advanceMs: HOUR });
    cancel = await submitThroughDesk(w, { kind: 'CANCEL', cardId });
    expect(cancel.orderNo).not.toBeNull();
    await failPendingOrder(w, cardId);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('is reported by ORDER_NOT_REFLECTED and awaited in order_outcomes alike', async () => {
    expect(results.findings.map((f) => [f.check, f.orderNo])).toEqual([
      ['ORDER_NOT_REFLECTED', freeze.orderNo],
    ]);
    const mirror = w.openMirror();
    try {
      const outcomes = mirror.db
        .prepare(
          `SELECT merchant_order_no, outcome FROM order_outcomes
           WHERE merchant_order_no IN (?, ?) ORDER BY submitted_at`,
        )
        .raw()
        .all(freeze.merchantOrderNo, cancel.merchantOrderNo);
      expect(outcomes).toEqual([
        [freeze.merchantOrderNo, 'awaiting_outcome'],
        [cancel.merchantOrderNo, 'failed'],
      ]);
    } finally {
      await mirror.close();
    }
  });
});
