import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { corruptingTransaction } from '../support/malformed-records.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a mirrored transaction that later arrives malformed', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine-resolution',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('stays unresolved in quarantine while no valid version of it has arrived since', async () => {
    const card = activeCard(w.t);
    const at = Date.now() - 20 * 86_400_000;
    const post = (status: string, createdAt: number) =>
      postForced(w.t, card, { type: 'PURCHASE', status, amount: '1.00', createdAt });
    // Two rows far before the lookback, a millisecond apart.
    const broken = await post('COMPLETED', at);
    const moving = await post('PENDING', at + 1);
    expect((await w.sync()).outcome).toBe('done');

    // The neighbour settles, so the count audit reads their range again, and the first row now
    // arrives malformed: quarantined, the mirror keeping the version read before.
    const moved = await w.t.control.post(`/_control/transactions/${moving}/status`, {
      status: 'COMPLETED',
    });
    expect(moved.status).toBe(200);
    const second = await w.sync({
      wrapApi: (api) => corruptingTransaction(syncApiOf(api), broken),
    });
    expect(second.outcome).toBe('done');
    expect(second.merchants[0]!.transactions.quarantined).toBe(1);

    // Still malformed upstream, but nothing in its range moved, so no window reads it.
    const third = await w.sync({ wrapApi: (api) => corruptingTransaction(syncApiOf(api), broken) });
    expect(third.outcome).toBe('done');
    const db = new Database(w.mirrorFile, { readonly: true });
    const resolvedAt = () =>
      db
        .prepare(
          "SELECT resolved_at FROM quarantine WHERE resource = 'transactions' AND record_id = ?",
        )
        .pluck()
        .get(broken) as string | null;
    try {
      expect(resolvedAt()).toBeNull();
      // Repaired upstream: read again (it was quarantined), and resolved.
      expect((await w.sync()).outcome).toBe('done');
      expect(resolvedAt()).not.toBeNull();
    } finally {
      db.close();
    }
  });
});
