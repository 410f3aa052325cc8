import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListTransactionsQuery } from '../../src/contract/index.js';
import { Database } from '../../src/sqlite-driver.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a transaction dated before the merchant’s oldest card', () => {
  let w: SyncWorld;
  let oldestCard: number;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'before-first-card',
      world: { cards: 20, transactions: 300, days: 20, anomaliesPerCode: 0 },
    });
    oldestCard = w.t.sandbox.context.store.db
      .prepare('SELECT min(created_at) FROM cards')
      .pluck()
      .get() as number;
  });
  afterAll(async () => w.close());

  /** Whether a mirror file holds the transaction. */
  const mirrored = (file: string, id: string): boolean => {
    const db = new Database(file, { readonly: true });
    try {
      return (
        db.prepare('SELECT 1 FROM transactions WHERE transaction_id = ?').get(id) !== undefined
      );
    } finally {
      db.close();
    }
  };

  it('is read by the closing audit, which counts the history before it, and not read again', async () => {
    expect((await w.sync()).outcome).toBe('done');
    // Two days before the oldest card: before the history every window reads.
    const early = await postForced(w.t, activeCard(w.t), {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '12.34',
      createdAt: oldestCard - 2 * 86_400_000,
    });
    const asked: ListTransactionsQuery[] = [];
    const found = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listTransactions: (query, options) => {
          asked.push(query);
          return api.listTransactions(query, options);
        },
      }),
    });
    expect(found.outcome).toBe('done');
    // The time before the first card is asked for with no lower bound, which the interface
    // allows, rather than from a date an upstream might refuse.
    const before = asked.filter((q) => q.startTime === undefined && q.limit === 1);
    expect(before.length).toBeGreaterThanOrEqual(4);
    for (const q of before) expect(Date.parse(q.endTime ?? '')).toBeLessThanOrEqual(oldestCard);
    for (const q of asked)
      if (q.startTime !== undefined) expect(q.startTime >= '2000-01-01').toBe(true);
    expect(found.merchants[0]?.audit.reread).toBeGreaterThan(0);
    expect(mirrored(w.mirrorFile, early)).toBe(true);
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);

    // Its counts agree from now on: a quiet night reads nothing for it.
    const quiet = await w.sync();
    expect(quiet.outcome).toBe('done');
    expect(quiet.merchants[0]?.audit.reread).toBe(0);
    expect(mirrored(w.mirrorFile, early)).toBe(true);
    // It is watched like any COMPLETED row (it may still settle).
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const open = db
        .prepare("SELECT count(*) FROM transactions WHERE status IN ('PENDING', 'COMPLETED')")
        .pluck()
        .get();
      expect(quiet.merchants[0]?.unsettled.watched).toBe(open);
    } finally {
      db.close();
    }
  });

  it('is left alone under --since, which says where the history starts', async () => {
    const file = `${w.dir}/since.sqlite`;
    const result = await w.sync({ mirrorFile: file, settings: { since: oldestCard } });
    expect(result.outcome).toBe('done');
    const differences = compareMirror(w.t.sandbox, file);
    expect(differences.missingTransactions).toHaveLength(1);
    expect({ ...differences, missingTransactions: [] }).toEqual(NO_DIFFERENCES);
  });
});
