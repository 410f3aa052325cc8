import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardOrder } from '../../src/journal/card-order.js';
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
 * ORDER_NOT_REFLECTED judges a card's latest FREEZE or UNFREEZE "unless a CANCEL follows it": a
 * cancelled card cannot be FROZEN. A CANCEL the upstream failed (the card blocked while it was
 * pending: its FEE record is DECLINED) cancelled nothing, and the FREEZE before it is still
 * not reflected in the card's status.
 */
describe('a FREEZE not reflected, followed by a CANCEL that failed', () => {
  let w: SyncWorld;
  let cardId: string;
  let freezeOrderNo: string | null;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startOrderWorld('failed-cancel-after-freeze');
    [cardId] = (await activeCards(w, 1)) as [string];
    // Each order is accepted, then the service fails it and the card is ACTIVE again.
    const failedOrder = async (order: CardOrder) => {
      const outcome = await submitThroughDesk(w, order);
      expect(outcome.state).toBe('ACCEPTED');
      await failPendingOrder(w, cardId);
      return outcome.orderNo;
    };
    freezeOrderNo = await failedOrder({ kind: 'FREEZE', cardId });
    await control(w, '/_control/clock', { advanceMs: 10 * 60_000 });
    await failedOrder({ kind: 'CANCEL', cardId });
    await control(w, '/_control/clock', { advanceMs: 2 * HOUR });
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('reports the FREEZE: the card is ACTIVE, not FROZEN', () => {
    expect(
      results.findings.map((f) => [f.check, f.orderNo, f.cardId, f.expected, f.actual]),
    ).toEqual([['ORDER_NOT_REFLECTED', freezeOrderNo, cardId, 'FROZEN', 'ACTIVE']]);
  });
});
