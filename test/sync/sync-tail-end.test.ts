import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSyncedRange } from '../../src/recon/synced-range.js';
import { activeCard } from '../support/forced-transactions.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';
import { postTransaction } from '../support/wire-fixtures.js';

describe('the tail window of a sync', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'tail-end',
      world: { cards: 10, transactions: 100, days: 5, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it("ends where it was read, so the synced range (summary.csv's synced_through) claims no row created after the run", async () => {
    const result = await w.sync();
    expect(result.outcome).toBe('done');
    // A purchase made once the sync is over: on the upstream's clock, after every read of it.
    const purchase = await postTransaction(w.t.control, activeCard(w.t), {
      type: 'VERIFICATION',
      status: 'COMPLETED',
      amount: '0.00',
    });
    const mirror = w.openMirror();
    try {
      const mirrored = mirror.db
        .prepare('SELECT count(*) FROM transactions WHERE transaction_id = ?')
        .pluck()
        .get(purchase.transactionId);
      expect(mirrored).toBe(0);
      const merchantId = w.t.sandbox.merchants[0]?.merchantId as string;
      const range = readSyncedRange(mirror.db, merchantId);
      // "Transactions are mirrored without a gap up to there": the purchase is not mirrored, so
      // `through` must come before it. The tail reached a minute past the upstream's present.
      expect(range.through).not.toBeNull();
      expect((range.through as string) < purchase.createdAt, `through ${range.through}`).toBe(true);
    } finally {
      await mirror.close();
    }
  }, 60_000);
});

describe('the tail window of a sync whose merchant balance answers after the cards', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'tail-end-balance',
      world: { cards: 10, transactions: 100, days: 5, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it("ends after the merchant balance snapshot, so MERCHANT_BALANCE_MISMATCH judges the night's interval", async () => {
    const started = w.t.sandbox.context.clock.now();
    // The tail's first request, or two seconds if it waits for the balance.
    let tailAsked: () => void = () => {};
    const tail = new Promise<void>((resolve) => {
      tailAsked = resolve;
      setTimeout(resolve, 2_000);
    });
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listTransactions: (query, options) => {
          if (Date.parse(query.endTime ?? '') > started) tailAsked();
          return api.listTransactions(query, options);
        },
        getMerchantBalance: async (options) => {
          await tail;
          return api.getMerchantBalance(options);
        },
      }),
    });
    expect(result.outcome).toBe('done');
    const mirror = w.openMirror();
    try {
      const merchantId = w.t.sandbox.merchants[0]?.merchantId as string;
      const through = readSyncedRange(mirror.db, merchantId).through as string;
      const snapshot = mirror.db
        .prepare('SELECT max(observed_at) FROM merchant_balances WHERE merchant_id = ?')
        .pluck()
        .get(merchantId) as string;
      expect(snapshot <= through, `snapshot ${snapshot}, through ${through}`).toBe(true);
    } finally {
      await mirror.close();
    }
  }, 60_000);
});
