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
 * A CANCEL the upstream failed (the card was blocked while it was pending: its FEE record is
 * DECLINED, reference-model section 3) left the card as it was; once unblocked, the card's
 * purchases are no activity on an inactive card.
 */
describe('a purchase after a CANCEL that failed, the card unblocked', () => {
  let w: SyncWorld;
  let cardId: string;
  let purchaseId: string;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('failed-cancel-activity');
    [cardId] = (await activeCards(w, 1, 5_000n)) as [string];
    expect((await submitThroughDesk(w, { kind: 'CANCEL', cardId })).state).toBe('ACCEPTED');
    await failPendingOrder(w, cardId);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    const purchase = await control(w, `/_control/cards/${cardId}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
    });
    expect(purchase.data.status).toBe('COMPLETED');
    purchaseId = purchase.data.transactionId;
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('mirrors the CANCEL as failed and the card as ACTIVE', async () => {
    const mirror = w.openMirror();
    try {
      const fee = mirror.db
        .prepare(
          `SELECT t.status FROM transactions t JOIN orders o ON o.order_no = t.trade_no
           WHERE o.kind = 'CANCEL' AND o.card_id = ?`,
        )
        .pluck()
        .get(cardId);
      expect(fee).toBe('DECLINED');
      expect(
        mirror.db.prepare('SELECT status FROM cards WHERE card_id = ?').pluck().get(cardId),
      ).toBe('ACTIVE');
    } finally {
      await mirror.close();
    }
  });

  it('reports no finding: the purchase is not activity on an inactive card', () => {
    expect(results.findings.map((f) => `${f.check} ${f.transactionId} ${f.detail}`)).toEqual([]);
    const activity = results.coverage.find((c) => c.check === 'ACTIVITY_ON_INACTIVE_CARD');
    expect(activity?.skipped).toEqual([]);
    expect(purchaseId).toMatch(/^txn_/);
  });
});
