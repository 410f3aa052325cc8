import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('planning the history of a first sync', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'history-plan',
      world: { cards: 2000, transactions: 4000, days: 200, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('reads history older than the first page of cards before the card list is all in', async () => {
    // Two requests at a time: the card list takes 20 pages, so reading it takes a while.
    const result = await w.sync({ settings: { concurrency: 2 } });
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      // The first page holds the 100 newest cards: what the sync knew of the history at first.
      const firstPageOldest = Date.parse(
        db
          .prepare('SELECT created_at FROM cards ORDER BY created_at DESC LIMIT 1 OFFSET 99')
          .pluck()
          .get() as string,
      );
      const lastCardRead = Date.parse(
        db.prepare('SELECT max(observed_at) FROM cards').pluck().get() as string,
      );
      const older = (
        db
          .prepare(
            "SELECT start_at AS startAt, finished_at AS finishedAt, duration_ms AS ms FROM sync_windows WHERE kind = 'history'",
          )
          .all() as { startAt: string; finishedAt: string; ms: number }[]
      ).filter((window) => Date.parse(window.startAt) < firstPageOldest);
      expect(older.length).toBeGreaterThan(0);
      const firstStarted = Math.min(...older.map((w) => Date.parse(w.finishedAt) - w.ms));
      // Planned once the list's last page (its oldest cards) was read, not after every page.
      expect(firstStarted).toBeLessThan(lastCardRead);
    } finally {
      db.close();
    }
  });
});
