import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { insertDenseMillisecond } from '../support/dense-millisecond.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/**
 * More rows in one millisecond than the writer thread's heap held as one window: such a window
 * cannot be cut, and landed whole its re-read (the nightly lookback) ran the thread out of
 * memory at about 60,000 rows (ERR_WORKER_OUT_OF_MEMORY: the run `failed`, exit 1).
 */
const ROWS = 80_000;

describe('a millisecond holding more rows than a batch', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'dense-millisecond',
      world: { cards: 5, transactions: 50, days: 10, anomaliesPerCode: 0 },
    });
    insertDenseMillisecond(w.t.sandbox, ROWS);
  }, 120_000);
  afterAll(async () => w.close());

  it('syncs it whole, every window that reads it landing in parts', async () => {
    // The widened queries read the millisecond from the four windows of 1 ms around it: the
    // first writes its rows, the other three find them stored, which is what ran out of memory.
    const result = await w.sync({ settings: { concurrency: 16 } });
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const windows = db
        .prepare(
          'SELECT count(*) AS n, sum(upserted) AS upserted FROM sync_windows WHERE expected >= ?',
        )
        .get(ROWS) as { n: number; upserted: number };
      // Each window's record counts what all its parts wrote.
      expect(windows).toEqual({ n: 4, upserted: ROWS });
    } finally {
      db.close();
    }
  }, 300_000);
});
