import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { quarantineRows } from '../support/quarantine-rows.js';
import { renamingTransaction, type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

describe('two transactions listed under one id, created at different times', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-duplicate-transaction-id',
      world: { cards: 20, transactions: 200, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('keep one in the mirror and the other in quarantine, run after run', async () => {
    const card = activeCard(w.t);
    const at = Date.now() - 5 * 86_400_000;
    const taken = await postForced(w.t, card, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '1.00',
      createdAt: at,
    });
    const renamed = await postForced(w.t, card, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '2.00',
      createdAt: at + 3_600_000,
    });
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const night of [1, 2]) {
      const result = await w.sync({ wrapApi: (api) => renamingTransaction(api, renamed, taken) });
      expect(result.outcome, `night ${night}`).toBe('done');
      const db = new Database(w.mirrorFile, { readonly: true });
      try {
        const kept = db
          .prepare('SELECT amount, created_at FROM transactions WHERE transaction_id = ?')
          .get(taken) as { amount: string; created_at: string };
        const quarantined = quarantineRows(w.mirrorFile, 'transactions');
        expect(quarantined, `night ${night}`).toHaveLength(1);
        const [row] = quarantined;
        expect(row).toMatchObject({ record_id: taken });
        // Refused by the writer (the mirror holds the id created at another time) or, where
        // one read lists both, by that read.
        expect(row!.reason).toMatch(/^\/(createdAt|transactionId) /);
        expect(row!.reason).toContain(taken);
        const raw = JSON.parse(row!.raw_json) as { amount: string; createdAt: string };
        // Both versions are kept, one in each place, whichever landed first.
        expect(
          [
            [kept.amount, kept.created_at],
            [raw.amount, raw.createdAt],
          ].sort(),
        ).toEqual([
          ['1.00', iso(at)],
          ['2.00', iso(at + 3_600_000)],
        ]);
      } finally {
        db.close();
      }
    }
  });
});

describe('two transactions listed under one id in the same millisecond', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-duplicate-transaction-id-same-ms',
      world: { cards: 20, transactions: 200, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('keep the first listed in the mirror and the other in quarantine, their window verified, not cut down to its millisecond and left unverified', async () => {
    const card = activeCard(w.t);
    const at = Date.now() - 5 * 86_400_000;
    const planted = [];
    for (const amount of ['1.00', '2.00'])
      planted.push(
        await postForced(w.t, card, {
          type: 'PURCHASE',
          status: 'COMPLETED',
          amount,
          createdAt: at,
        }),
      );
    const [taken, renamed] = planted as [string, string];
    const result = await w.sync({ wrapApi: (api) => renamingTransaction(api, renamed, taken) });
    expect(result.outcome).toBe('done');
    const transactions = result.merchants[0]!.transactions;
    expect(transactions).toMatchObject({ quarantined: 1, unverified: 0, splits: 0 });
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const kept = db
        .prepare('SELECT amount FROM transactions WHERE transaction_id = ?')
        .pluck()
        .get(taken) as string;
      const quarantined = quarantineRows(w.mirrorFile, 'transactions');
      expect(quarantined).toHaveLength(1);
      expect(quarantined[0]!.record_id).toBe(taken);
      expect(quarantined[0]!.reason).toContain('/transactionId');
      const raw = JSON.parse(quarantined[0]!.raw_json) as { amount: string };
      expect([kept, raw.amount].sort()).toEqual(['1.00', '2.00']);
    } finally {
      db.close();
    }
  });
});
