import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import type { SyncWorld } from '../support/sync-harness.js';
import { activeCards, control, startOrderWorld, submitThroughDesk } from './support/desk-orders.js';
import { checkWorld } from './support/recon-world.js';

const HOUR = 3_600_000;

/**
 * A FREEZE left SUBMITTED is settled by sending it again with its merchantOrderNo. When the first
 * request never reached the upstream, the resend places the order (answered without
 * `idempotent-replayed`): the card was stopped then, and a purchase between the two sendings was
 * made on an active card. When the first request was taken and only its answer lost, the resend
 * is replayed: the card was stopped from the first sending, and a purchase forced through after
 * it is activity on an inactive card.
 */
describe('purchases between a FREEZE left SUBMITTED and its resend', () => {
  let w: SyncWorld;
  let replayedCard: string;
  let forcedPurchase: string;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('resent-freeze-activity');
    const [first, lostCard] = (await activeCards(w, 2, 5_000n)) as [string, string];
    replayedCard = first;
    const unanswered = async (fault: 'commit-then-drop' | 'reset', cardId: string) => {
      await control(w, '/_control/faults', {
        kind: fault,
        match: { operation: 'freezeCard' },
        times: 100,
      });
      const outcome = await submitThroughDesk(w, { kind: 'FREEZE', cardId });
      await w.t.control.call('DELETE', '/_control/faults');
      expect(outcome.state).toBe('SUBMITTED');
      return outcome.merchantOrderNo;
    };
    // Taken, its answer lost: the card is FROZEN from the first sending.
    const replayedRef = await unanswered('commit-then-drop', replayedCard);
    const taken = await control(w, '/_control/orders/process', {});
    expect(taken.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    // Never arrived: the card stays ACTIVE until the resend.
    const lostRef = await unanswered('reset', lostCard);

    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    const purchase = await control(w, `/_control/cards/${lostCard}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
    });
    expect(purchase.data.status).toBe('COMPLETED');
    const forced = await control(w, `/_control/cards/${replayedCard}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
      force: true,
    });
    forcedPurchase = forced.data.transactionId;
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });

    const resent = await submitThroughDesk(
      w,
      { kind: 'FREEZE', cardId: lostCard },
      { merchantOrderNo: lostRef },
    );
    expect([resent.state, resent.replayed]).toEqual(['ACCEPTED', false]);
    const replayed = await submitThroughDesk(
      w,
      { kind: 'FREEZE', cardId: replayedCard },
      { merchantOrderNo: replayedRef },
    );
    expect([replayed.state, replayed.replayed]).toEqual(['ACCEPTED', true]);
    const processed = await control(w, '/_control/orders/process', {});
    expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['success']);
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  }, 120_000);
  afterAll(async () => w?.close());

  it('reports only the purchase made after the FREEZE that was taken', () => {
    expect(results.findings.map((f) => [f.check, f.cardId, f.transactionId])).toEqual([
      ['ACTIVITY_ON_INACTIVE_CARD', replayedCard, forcedPurchase],
    ]);
  });
});
