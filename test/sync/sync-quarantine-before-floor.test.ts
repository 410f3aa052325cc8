import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HISTORY_FLOOR } from '../../src/sync/time-range.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { corruptingTransaction } from '../support/malformed-records.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a mirrored transaction dated before the history floor that arrived malformed', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'quarantine-before-floor',
      world: { cards: 20, transactions: 300, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is resolved once read valid again, and its range is not read every night after', async () => {
    const card = activeCard(w.t);
    // A day before the floor: only the audit of the time before the oldest card reads it.
    const at = HISTORY_FLOOR - 86_400_000;
    const post = (status: string, createdAt: number) =>
      postForced(w.t, card, { type: 'PURCHASE', status, amount: '1.00', createdAt });
    const broken = await post('COMPLETED', at);
    const moving = await post('PENDING', at + 1);
    expect((await w.sync()).outcome).toBe('done');

    // The neighbour settles, so the audit reads their range again: the first row now arrives
    // malformed, quarantined, the mirror keeping the version read before.
    const moved = await w.t.control.post(`/_control/transactions/${moving}/status`, {
      status: 'COMPLETED',
    });
    expect(moved.status).toBe(200);
    const second = await w.sync({
      wrapApi: (api) => corruptingTransaction(syncApiOf(api), broken),
    });
    expect(second.merchants[0]?.transactions.quarantined).toBe(1);

    // Repaired upstream: read again (it was quarantined), and resolved.
    const repaired = await w.sync();
    expect(repaired.outcome).toBe('done');
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const resolvedAt = db
        .prepare(
          "SELECT resolved_at FROM quarantine WHERE resource = 'transactions' AND record_id = ?",
        )
        .pluck()
        .get(broken) as string | null;
      expect(resolvedAt).not.toBeNull();
    } finally {
      db.close();
    }
    // Nothing moved since: a quiet night reads nothing.
    const quiet = await w.sync();
    expect(quiet.merchants[0]?.audit.reread).toBe(0);
  });
});
