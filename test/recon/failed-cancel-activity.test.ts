import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import { OrderDesk } from '../../src/journal/order-desk.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
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
    w = await startSyncWorld({
      seed: 'failed-cancel-activity',
      merchants: 1,
      currencies: ['USD'],
      world: { cards: 20, transactions: 120, days: 5, anomaliesPerCode: 0 },
    });
    const merchant = w.t.sandbox.merchants[0] as (typeof w.t.sandbox.merchants)[number];
    const api = w.t.merchants[0] as (typeof w.t.merchants)[number];
    const cards = (await api.get('/cards', { query: { limit: 100 } })).body.data as {
      cardId: string;
      status: string;
      balance: string;
    }[];
    const card = cards.find((c) => c.status === 'ACTIVE' && Number(c.balance) > 50);
    if (!card) throw new Error('the world has no ACTIVE card with a balance');
    cardId = card.cardId;
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
      expect((await desk.submit({ kind: 'CANCEL', cardId })).state).toBe('ACCEPTED');
    } finally {
      await client.close();
      await mirror.close();
    }
    const control = async (path: string, body: unknown) => {
      const answer = await w.t.control.post(path, body);
      expect(answer.status, answer.text).toBeLessThan(300);
      return answer.body;
    };
    await control(`/_control/cards/${cardId}/status`, { status: 'BLOCKED' });
    const processed = await control('/_control/orders/process', {});
    expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['failure']);
    await control(`/_control/cards/${cardId}/status`, { status: 'ACTIVE' });
    await control('/_control/clock', { advanceMs: 2 * HOUR });
    const purchase = await control(`/_control/cards/${cardId}/transactions`, {
      type: 'PURCHASE',
      amount: '5.00',
      status: 'COMPLETED',
    });
    expect(purchase.data.status).toBe('COMPLETED');
    purchaseId = purchase.data.transactionId;
    await control('/_control/clock', { advanceMs: 2 * HOUR });
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
