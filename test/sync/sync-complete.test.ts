import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a sync of a generated world', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 2,
      currencies: ['USD', 'JPY'],
      seed: 'sync-complete',
      world: { cards: 300, transactions: 6000, days: 60, anomaliesPerCode: 1 },
    });
  });
  afterAll(async () => w.close());

  it('mirrors every card and transaction of both merchants exactly, in many windows', async () => {
    const result = await w.sync();
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
    for (const merchant of result.merchants) {
      expect(merchant.outcome).toBe('done');
      expect(merchant.transactions.splits).toBeGreaterThan(0);
      expect(merchant.transactions.unverified).toBe(0);
    }
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const windows = db
        .prepare(
          "SELECT count(*) AS n, sum(expected = fetched) AS exact FROM sync_windows WHERE kind = 'history'",
        )
        .get() as { n: number; exact: number };
      expect(windows.n).toBeGreaterThan(4);
      expect(windows.exact).toBe(windows.n);
      const merchants = db
        .prepare('SELECT merchant_id, currency FROM merchants ORDER BY currency')
        .all();
      expect(merchants).toEqual(
        w.t.sandbox.merchants
          .map((m) => ({ merchant_id: m.merchantId, currency: m.currency }))
          .sort((a, b) => a.currency.localeCompare(b.currency)),
      );
      const offerings = db.prepare('SELECT count(*) AS n FROM offerings').get() as { n: number };
      expect(offerings.n).toBe(8);
      const balances = db.prepare('SELECT count(*) AS n FROM merchant_balances').get() as {
        n: number;
      };
      expect(balances.n).toBe(2);
      // A mirror that is only synced, never reconciled, still gives analysts' queries planned
      // with statistics.
      const analysed = db
        .prepare("SELECT DISTINCT tbl FROM sqlite_stat1 WHERE tbl IN ('cards', 'transactions')")
        .pluck()
        .all();
      expect(analysed.sort()).toEqual(['cards', 'transactions']);
    } finally {
      db.close();
    }
  });

  it('finds nothing new on a second run, reading only the lookback and the unsettled rows', async () => {
    const result = await w.sync();
    expect(result.outcome).toBe('done');
    for (const merchant of result.merchants) {
      expect(merchant.transactions.inserted).toBe(0);
      expect(merchant.transactions.updated).toBe(0);
      expect(merchant.cards.inserted).toBe(0);
    }
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const kinds = db
        .prepare('SELECT DISTINCT kind FROM sync_windows WHERE run_id = ? ORDER BY kind')
        .all(result.runId)
        .map((row) => (row as { kind: string }).kind);
      expect(kinds).not.toContain('history');
      expect(kinds).toContain('lookback');
    } finally {
      db.close();
    }
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
  });
});
