import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('a second sync of a moving world', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-moving',
      world: { cards: 200, transactions: 4000, days: 30, anomaliesPerCode: 0 },
      activityPerSecond: 400,
    });
  });
  afterAll(async () => w.close());

  it('catches every new row, every status change and every late posting', async () => {
    const world = w.t.sandbox.movingWorld!;
    // A reversal older than the lookback, COMPLETED, which the night settles: the world's own
    // moves on old rows are picked at random, and a first sync slowed by a loaded machine gives
    // it time to make them all before the night begins. It never moves a reversal.
    const oldUnsettled = await postForced(w.t, activeCard(w.t), {
      type: 'REVERSAL',
      status: 'COMPLETED',
      amount: '0.01',
      createdAt: w.t.sandbox.context.clock.now() - 10 * 24 * 3_600_000,
    });
    // The world moves on its own timer while the first sync reads.
    const first = await w.sync();
    expect(first.outcome).toBe('done');
    world.stop();
    // Then the night's activity: new rows, statuses moving on (old rows too), late postings
    // that only become visible once the clock passes them.
    expect(world.step(1500)).toBeGreaterThan(1000);
    // One late posting and one old row settled for certain: the world's own late postings (a
    // tenth of its purchases) need cards with money left, which a slow first sync gives the world
    // time to spend.
    await postForced(w.t, activeCard(w.t), {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '1.00',
      createdAt: w.t.sandbox.context.clock.now() - 3_600_000,
    });
    const settled = await w.t.control.post(`/_control/transactions/${oldUnsettled}/status`, {
      status: 'SETTLED',
    });
    expect(settled.status, settled.text).toBe(200);
    const before = new Database(w.mirrorFile, { readonly: true });
    const mirrored = new Map(
      (
        before.prepare('SELECT transaction_id, status FROM transactions').all() as {
          transaction_id: string;
          status: string;
        }[]
      ).map((row) => [row.transaction_id, row.status]),
    );
    before.close();
    await w.t.control.post('/_control/clock', { advanceMs: 10 * 60_000 });

    const second = await w.sync();
    expect(second.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);

    // The night really had all three kinds of change, including on rows older than the lookback.
    const store = w.t.sandbox.context.store.db;
    const truth = store
      .prepare(
        'SELECT transaction_id, status, created_at, visible_at FROM transactions WHERE posted = 1',
      )
      .all() as {
      transaction_id: string;
      status: string;
      created_at: number;
      visible_at: number;
    }[];
    const added = truth.filter((t) => !mirrored.has(t.transaction_id));
    const moved = truth.filter(
      (t) => mirrored.has(t.transaction_id) && mirrored.get(t.transaction_id) !== t.status,
    );
    const late = added.filter((t) => t.visible_at > t.created_at);
    const cutoff = Date.parse(second.cutoff ?? '');
    const movedOld = moved.filter((t) => t.created_at < cutoff - 72 * 3_600_000);
    expect(added.length).toBeGreaterThan(100);
    expect(late.length).toBeGreaterThan(0);
    expect(moved.length).toBeGreaterThan(50);
    expect(movedOld.length).toBeGreaterThan(0);
    const unsettled = second.merchants[0]!.unsettled;
    expect(unsettled.vanished).toBe(0);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const changes = db
        .prepare('SELECT count(*) AS n FROM transaction_status_changes WHERE run_id = ?')
        .get(second.runId) as { n: number };
      expect(changes.n).toBe(moved.length);
    } finally {
      db.close();
    }
  });
});
