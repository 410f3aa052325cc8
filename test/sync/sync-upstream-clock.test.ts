import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { advanceClock, postTransaction } from '../support/wire-fixtures.js';

/** The upstream's clock is set this far ahead; its purchase comes this long before the sync. */
const AHEAD_MS = 10 * 60_000;
const BEFORE_SYNC_MS = 3_000;

describe("a sync against an upstream whose clock is ten minutes ahead of this host's", () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'upstream-clock',
      world: { cards: 30, transactions: 300, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it("stamps each card's read on the upstream's clock, so a purchase made seconds before it counts as visible to that balance; the merchant balance and the offerings' terms too", async () => {
    await advanceClock(w.t.control, AHEAD_MS - BEFORE_SYNC_MS);
    const cardId = w.t.sandbox.context.store.db
      .prepare("SELECT card_id FROM cards WHERE status = 'ACTIVE' AND balance_minor >= 500 LIMIT 1")
      .pluck()
      .get() as string;
    const purchase = await postTransaction(w.t.control, cardId, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '1.00',
    });
    // A Date header names its second only: the read's stamp may be off by up to a second
    // before the answers have crossed one, never by the ten minutes.
    await advanceClock(w.t.control, BEFORE_SYNC_MS);
    const before = Date.now();
    const result = await w.sync();
    const after = Date.now();
    expect(result.outcome).toBe('done');

    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const card = db
        .prepare('SELECT observed_at AS observedAt FROM cards WHERE card_id = ?')
        .get(cardId) as { observedAt: string };
      const row = db
        .prepare(
          'SELECT created_at AS createdAt, first_seen_at AS firstSeenAt FROM transactions WHERE transaction_id = ?',
        )
        .get(purchase.transactionId) as { createdAt: string; firstSeenAt: string };
      // The balance read includes the purchase, and the stamps say so (section 6: "a balance is
      // compared with the records that were visible when it was read").
      expect(row.createdAt <= card.observedAt).toBe(true);
      expect(row.createdAt <= row.firstSeenAt).toBe(true);
      // The merchant balance snapshot and the offerings' terms are read times too, held against
      // the orders placed from the command line, which are journaled on the upstream's clock.
      const balance = db
        .prepare('SELECT max(observed_at) FROM merchant_balances')
        .pluck()
        .get() as string;
      const terms = db
        .prepare('SELECT min(observed_at) FROM offering_versions')
        .pluck()
        .get() as string;
      // All are the upstream's time: ten minutes past this host's, give or take a round trip.
      for (const at of [card.observedAt, row.firstSeenAt, balance, terms]) {
        expect(Date.parse(at)).toBeGreaterThanOrEqual(before + AHEAD_MS - 1_100);
        expect(Date.parse(at)).toBeLessThanOrEqual(after + AHEAD_MS + 1_100);
      }
    } finally {
      db.close();
    }
  });
});
