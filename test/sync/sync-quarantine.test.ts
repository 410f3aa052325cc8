import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CardIssuingClient, MalformedRecordError } from '../../src/api/index.js';
import type { Transaction } from '../../src/contract/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { compareMirror } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/**
 * The real client, with chosen records altered after they arrive: some turned into what fails
 * the contract (an amount as a JSON number), one given an amount too large to hold exactly.
 * The sandbox never sends such records, so this is the one place they are made.
 */
function corrupting(api: CardIssuingClient, broken: Set<string>, huge: string): SyncApi {
  return {
    listCards: (q, o) => api.listCards(q, o),
    getCard: (id, o) => api.getCard(id, o),
    getMerchantBalance: (o) => api.getMerchantBalance(o),
    listOfferings: (o) => api.listOfferings(o),
    upstreamNow: () => api.upstreamNow(),
    listTransactions: async (query, options) => {
      const page = await api.listTransactions(query, options);
      const records: Transaction[] = [];
      for (const row of page.records) {
        if (broken.has(row.transactionId)) {
          const raw = { ...row, amount: Number(row.amount) };
          page.rejected.push(
            new MalformedRecordError(raw, '/amount must be string', {
              operation: 'listTransactions',
              attempts: 1,
            }),
          );
        } else if (row.transactionId === huge) {
          records.push({ ...row, amount: '98765432109876543210.00' });
        } else records.push(row);
      }
      page.records = records;
      return page;
    },
  };
}

describe('malformed records from the upstream', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine',
      world: { cards: 40, transactions: 600, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('are quarantined with the raw record and the reason while the run goes on, and resolved once they arrive valid', async () => {
    const ids = (
      w.t.sandbox.context.store.db
        .prepare(
          'SELECT transaction_id AS id FROM transactions WHERE posted = 1 ORDER BY transaction_id LIMIT 4',
        )
        .all() as { id: string }[]
    ).map((row) => row.id);
    const broken = new Set(ids.slice(0, 3));
    const huge = ids[3]!;
    const first = await w.sync({ wrapApi: (api) => corrupting(api, broken, huge) });
    expect(first.outcome).toBe('done');
    expect(first.merchants[0]!.transactions.quarantined).toBe(4);
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions.sort()).toEqual(
      [...ids].sort(),
    );
    const db = new Database(w.mirrorFile, { readonly: true });
    const rows = () =>
      db
        .prepare(
          "SELECT record_id, reason, raw_json, seen_count, resolved_at FROM quarantine WHERE resource = 'transactions' ORDER BY record_id",
        )
        .all() as {
        record_id: string;
        reason: string;
        raw_json: string;
        seen_count: number;
        resolved_at: string | null;
      }[];
    try {
      const quarantined = rows();
      expect(quarantined.map((q) => q.record_id).sort()).toEqual([...ids].sort());
      for (const q of quarantined) {
        const raw = JSON.parse(q.raw_json) as { transactionId: string; amount: unknown };
        expect(raw.transactionId).toBe(q.record_id);
        if (q.record_id === huge) {
          expect(q.reason).toMatch(/too large/);
          expect(raw.amount).toBe('98765432109876543210.00');
        } else {
          expect(q.reason).toBe('/amount must be string');
          expect(typeof raw.amount).toBe('number');
        }
        expect(q.resolved_at).toBeNull();
      }

      // Still malformed next run: read again once (it might have been repaired), kept, no loop.
      const again = await w.sync({ wrapApi: (api) => corrupting(api, broken, huge) });
      expect(again.outcome).toBe('done');
      const audit = again.merchants[0]!.audit;
      expect(audit.reread).toBeGreaterThan(0);
      expect(audit.reread).toBeLessThanOrEqual(4);
      for (const q of rows()) {
        expect(q.seen_count).toBe(2);
        expect(q.resolved_at).toBeNull();
      }

      const second = await w.sync();
      expect(second.outcome).toBe('done');
      expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions).toEqual([]);
      for (const q of rows()) expect(q.resolved_at).not.toBeNull();
    } finally {
      db.close();
    }
  });
});
