import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import type { SyncWorld } from '../support/sync-harness.js';
import { activeCards, control, startOrderWorld, submitThroughDesk } from './support/desk-orders.js';
import { checkWorld } from './support/recon-world.js';

const HOUR = 3_600_000;

/**
 * An UNFREEZE the upstream failed restarted nothing: the card its FREEZE stopped, read FROZEN
 * after it and never ACTIVE since, was not active again, and a purchase forced through 2 hours on
 * is activity on an inactive card, as one after a FREEZE with no UNFREEZE is. One 2 hours after
 * an UNFREEZE that held is not. The sandbox fails an UNFREEZE when the service blocked the card
 * while it was pending, and leaves it BLOCKED (docs/sandbox.md); the service here unblocks it to
 * what it was before the UNFREEZE, FROZEN, as the store allows and the control route does not.
 */
describe('purchases after an UNFREEZE that failed, and after one that held', () => {
  let w: SyncWorld;
  let failedCard: string;
  let heldCard: string;
  let failedCardFreeze: string | null;
  let failedUnfreeze: string | null;
  let blockedPurchase: string;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('failed-unfreeze-activity');
    [heldCard, failedCard] = (await activeCards(w, 2, 5_000n)) as [string, string];
    for (const cardId of [heldCard, failedCard]) {
      const freeze = await submitThroughDesk(w, { kind: 'FREEZE', cardId });
      expect(freeze.state).toBe('ACCEPTED');
      if (cardId === failedCard) failedCardFreeze = freeze.orderNo;
    }
    const frozen = await control(w, '/_control/orders/process', {});
    expect(frozen.processed.map((p: { outcome: string }) => p.outcome)).toEqual([
      'success',
      'success',
    ]);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');

    // The held UNFREEZE: carried out, the card ACTIVE.
    expect((await submitThroughDesk(w, { kind: 'UNFREEZE', cardId: heldCard })).state).toBe(
      'ACCEPTED',
    );
    const held = await control(w, '/_control/orders/process', {});
    expect(held.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    // The failed UNFREEZE: the card blocked while it is pending, the order failed.
    const unfreeze = await submitThroughDesk(w, { kind: 'UNFREEZE', cardId: failedCard });
    expect(unfreeze.state).toBe('ACCEPTED');
    failedUnfreeze = unfreeze.orderNo;
    await control(w, `/_control/cards/${failedCard}/status`, { status: 'BLOCKED' });
    const failed = await control(w, '/_control/orders/process', {});
    expect(failed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['failure']);
    w.t.sandbox.context.store.cards.setStatus(failedCard, 'FROZEN');
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    const activePurchase = await control(w, `/_control/cards/${heldCard}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
    });
    expect(activePurchase.data.status).toBe('COMPLETED');
    const forced = await control(w, `/_control/cards/${failedCard}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
      force: true,
    });
    blockedPurchase = forced.data.transactionId;
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('reports the purchase after the failed UNFREEZE against the FREEZE, and that UNFREEZE not reflected', () => {
    const found = results.findings
      .map((f) => [f.check, f.cardId, f.orderNo, f.transactionId])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(found).toEqual([
      ['ACTIVITY_ON_INACTIVE_CARD', failedCard, failedCardFreeze, blockedPurchase],
      ['ORDER_NOT_REFLECTED', failedCard, failedUnfreeze, null],
    ]);
  });
});
