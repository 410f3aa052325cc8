import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { HISTORY_FLOOR } from '../../src/sync/time-range.js';
import { activeCard, postVerification } from '../support/forced-transactions.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('--since before the history floor', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'since-before-floor',
      world: { cards: 20, transactions: 200, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('reads nothing dated before it', async () => {
    const since = HISTORY_FLOOR - 365 * 86_400_000;
    const card = activeCard(w.t);
    const post = (createdAt: number) => postVerification(w.t, createdAt, card);
    const before = await post(since - 86_400_000);
    const after = await post(since + 86_400_000);
    const result = await w.sync({ settings: { since } });
    expect(result.outcome).toBe('done');
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const mirrored = (id: string) =>
        db.prepare('SELECT 1 FROM transactions WHERE transaction_id = ?').get(id) !== undefined;
      expect(mirrored(after)).toBe(true);
      expect(mirrored(before)).toBe(false);
    } finally {
      db.close();
    }
  });
});
