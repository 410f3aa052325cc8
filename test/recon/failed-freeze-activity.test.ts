import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { minorOf } from '../support/decimal-text.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { control, failPendingOrder, submitThroughDesk } from './support/desk-orders.js';
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
    w = await startSyncWorld({
      seed: 'failed-freeze-activity',
      merchants: 1,
      currencies: ['USD'],
      world: { cards: 20, transactions: 120, days: 5, anomaliesPerCode: 0 },
    });
    const api = w.t.merchants[0] as (typeof w.t.merchants)[number];
    const cards = (await api.get('/cards', { query: { limit: 100 } })).body.data as {
      cardId: string;
      status: string;
      balance: string;
    }[];
    const active = cards.filter((c) => c.status === 'ACTIVE' && minorOf(c.balance, 2) > 5_000n);
    if (active.length < 2) throw new Error('the world has no two ACTIVE cards with a balance');
    heldCard = (active[0] as (typeof active)[number]).cardId;
    failedCard = (active[1] as (typeof active)[number]).cardId;

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
    w = await startSyncWorld({
      seed: 'failed-freeze-refrozen',
      merchants: 1,
      currencies: ['USD'],
      world: { cards: 20, transactions: 120, days: 5, anomaliesPerCode: 0 },
    });
    const api = w.t.merchants[0] as (typeof w.t.merchants)[number];
    const cards = (await api.get('/cards', { query: { limit: 100 } })).body.data as {
      cardId: string;
      status: string;
      balance: string;
    }[];
    const card = cards.find((c) => c.status === 'ACTIVE' && minorOf(c.balance, 2) > 5_000n);
    if (!card) throw new Error('the world has no ACTIVE card with a balance');
    const cardId = card.cardId;
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
