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
 * A FREEZE the upstream failed (the card was blocked while it was pending, then unblocked)
 * leaves no FEE record (reference-model section 3: only money orders and CANCEL do): the card,
 * read ACTIVE more than grace after it, is ORDER_NOT_REFLECTED, but it was never frozen, and its
 * purchases are no activity on an inactive card. A FREEZE a read showed FROZEN did stop its
 * card, even when the service later blocked and unblocked it to ACTIVE: a purchase forced
 * through while it was frozen is still reported.
 */
describe('purchases after a FREEZE that failed, and after one that held', () => {
  let w: SyncWorld;
  let failedCard: string;
  let heldCard: string;
  let failedFreeze: string | null;
  let heldFreeze: string | null;
  let frozenPurchase: string;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('failed-freeze-activity');
    [heldCard, failedCard] = (await activeCards(w, 2, 5_000n)) as [string, string];

    // The held FREEZE: carried out, the card read FROZEN by a sync, a purchase forced through
    // while frozen; then the service blocks the card and unblocks it to ACTIVE.
    const held = await submitThroughDesk(w, { kind: 'FREEZE', cardId: heldCard });
    expect(held.state).toBe('ACCEPTED');
    heldFreeze = held.orderNo;
    const processed = await control(w, '/_control/orders/process', {});
    expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    const forced = await control(w, `/_control/cards/${heldCard}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
      force: true,
    });
    frozenPurchase = forced.data.transactionId;
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    await control(w, `/_control/cards/${heldCard}/status`, { status: 'BLOCKED' });
    await control(w, `/_control/cards/${heldCard}/status`, { status: 'ACTIVE' });

    // The failed FREEZE: accepted, failed, the card ACTIVE again; a purchase 2 hours later.
    const failed = await submitThroughDesk(w, { kind: 'FREEZE', cardId: failedCard });
    expect(failed.state).toBe('ACCEPTED');
    failedFreeze = failed.orderNo;
    await failPendingOrder(w, failedCard);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    const purchase = await control(w, `/_control/cards/${failedCard}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
    });
    expect(purchase.data.status).toBe('COMPLETED');
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('reports both FREEZEs not reflected, and only the purchase made while frozen', () => {
    const found = results.findings
      .map((f) => [f.check, f.cardId, f.orderNo, f.transactionId])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(found).toEqual([
      ['ACTIVITY_ON_INACTIVE_CARD', heldCard, heldFreeze, frozenPurchase],
      ...[
        ['ORDER_NOT_REFLECTED', failedCard, failedFreeze, null],
        ['ORDER_NOT_REFLECTED', heldCard, heldFreeze, null],
      ].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    ]);
  });
});

/**
 * After a FREEZE that failed, the card is frozen again by a FREEZE that holds. The second was
 * accepted, so the card was ACTIVE when it was placed (reference-model section 2: FREEZE is
 * allowed from ACTIVE only): the first had not stopped it, and a purchase between the two is no
 * activity on an inactive card, now that the first is no longer the card's latest order.
 */
describe('a purchase between a FREEZE that failed and the FREEZE that froze the card', () => {
  let w: SyncWorld;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('failed-freeze-refrozen');
    const [cardId] = (await activeCards(w, 1, 5_000n)) as [string];
    expect((await submitThroughDesk(w, { kind: 'FREEZE', cardId })).state).toBe('ACCEPTED');
    await failPendingOrder(w, cardId);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    const purchase = await control(w, `/_control/cards/${cardId}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
    });
    expect(purchase.data.status).toBe('COMPLETED');
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    expect((await submitThroughDesk(w, { kind: 'FREEZE', cardId })).state).toBe('ACCEPTED');
    const processed = await control(w, '/_control/orders/process', {});
    expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('reports nothing: the card was frozen by the second FREEZE, and is FROZEN', () => {
    expect(results.findings.map((f) => [f.check, f.transactionId, f.detail])).toEqual([]);
  });
});
