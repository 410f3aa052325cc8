import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import type { CardOrder } from '../../src/journal/card-order.js';
import { OrderDesk } from '../../src/journal/order-desk.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
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
    w = await startSyncWorld({
      seed: 'failed-cancel-after-freeze',
      merchants: 1,
      currencies: ['USD'],
      world: { cards: 20, transactions: 120, days: 5, anomaliesPerCode: 0 },
    });
    const merchant = w.t.sandbox.merchants[0] as (typeof w.t.sandbox.merchants)[number];
    const api = w.t.merchants[0] as (typeof w.t.merchants)[number];
    const cards = (await api.get('/cards', { query: { limit: 100 } })).body.data as {
      cardId: string;
      status: string;
    }[];
    const card = cards.find((c) => c.status === 'ACTIVE');
    if (!card) throw new Error('the world has no ACTIVE card');
    cardId = card.cardId;
    const control = async (path: string, body: unknown) => {
      const answer = await w.t.control.post(path, body);
      expect(answer.status, answer.text).toBeLessThan(300);
      return answer.body;
    };
    // Each order is accepted, then the service blocks the card before it is processed: the
    // order fails, and the card is unblocked (ACTIVE) again.
    const failedOrder = async (order: CardOrder) => {
      const mirror = w.openMirror();
      const client = new CardIssuingClient({
        baseUrl: w.t.sandbox.baseUrl,
        apiKey: merchant.apiKey,
        ca: w.t.sandbox.caPem,
      });
      try {
        const desk = new OrderDesk({
          db: mirror.db,
          api: client,
          merchantId: merchant.merchantId,
          currency: 'USD',
          clock: () => new Date(w.t.sandbox.context.clock.now()),
        });
        const outcome = await desk.submit(order);
        expect(outcome.state).toBe('ACCEPTED');
        await control(`/_control/cards/${cardId}/status`, { status: 'BLOCKED' });
        const processed = await control('/_control/orders/process', {});
        expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['failure']);
        await control(`/_control/cards/${cardId}/status`, { status: 'ACTIVE' });
        return outcome.orderNo;
      } finally {
        await client.close();
        await mirror.close();
      }
    };
    freezeOrderNo = await failedOrder({ kind: 'FREEZE', cardId });
    await control('/_control/clock', { advanceMs: 10 * 60_000 });
    await failedOrder({ kind: 'CANCEL', cardId });
    await control('/_control/clock', { advanceMs: 2 * HOUR });
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
