import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeTransactionStatus } from '../../src/sandbox/activity/card-activity.js';
import type { TransactionRecord } from '../../src/sandbox/store/records.js';
import { Database } from '../../src/sqlite-driver.js';
import { splitRange } from '../../src/sync/time-range.js';
import { activeCard, postForced, postVerification } from '../support/forced-transactions.js';
import { compareMirror } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/**
 * Two windows that share a boundary instant both read the rows on it, and windows land in the
 * order they finish, not the order they read. A row read PENDING by one window, then COMPLETED
 * by its neighbour, which landed first, was written back to PENDING when the slower window
 * landed: beyond the closing audit's range (the tail), the run ended `done` with the stale
 * status, and the mirror recorded a move COMPLETED -> PENDING the upstream never made.
 */
describe('a row on the boundary of two windows, moved between their reads', () => {
  let w: SyncWorld;
  let lastPosted: number;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'boundary-read-order',
      world: { cards: 20, transactions: 300, days: 5, anomaliesPerCode: 0 },
    });
    // The tail (the run's last minute: from its cutoff to its present) holds five pages of 25
    // rows, all in its last third: it is cut in three, and its first third holds none of them.
    const now = w.t.sandbox.context.clock.now();
    for (let i = 0; i < 110; i++) await postVerification(w.t, now - 10_000 + i * 90);
    lastPosted = now - 10_000 + 109 * 90;
  });
  afterAll(async () => w.close());

  it('keeps the status read last, whichever window lands last', async () => {
    const { sandbox } = w.t;
    sandbox.faults.replace([
      { kind: 'page-size', max: 25, match: { operation: 'listTransactions' } },
    ]);
    const card = activeCard(w.t);
    let planted: string | undefined;
    // The window that read the planted row PENDING on its first page, whose second page waits.
    let slow: string | undefined;
    const mirroredStatus = (id: string): string | undefined => {
      const db = new Database(w.mirrorFile, { readonly: true, fileMustExist: true });
      try {
        return db
          .prepare('SELECT status FROM transactions WHERE transaction_id = ?')
          .pluck()
          .get(id) as string | undefined;
      } finally {
        db.close();
      }
    };
    const result = await w.sync({
      settings: { concurrency: 4, maxPagesPerWindow: 2 },
      wrapApi: (api) => ({
        ...syncApiOf(api),
        async listTransactions(query, options) {
          const page = await api.listTransactions(query, options);
          const window = `${query.startTime}/${query.endTime}`;
          const end = Date.parse(query.endTime ?? '');
          if (planted === undefined && query.startTime && end > lastPosted) {
            // The tail's first page (the lookback ends at the cutoff, a minute before the run):
            // the client cuts it as below. A purchase goes on the first
            // cut, which both windows around it read, with 30 rows before it: the first window
            // is two pages.
            const { total, limit } = page.pagination;
            const range = { start: Date.parse(query.startTime) + 1, end: end - 1 };
            const parts = splitRange(range, Math.ceil(Math.ceil(total / limit) / 2));
            expect(parts.length).toBe(3);
            const cut = (parts[0] as { end: number }).end;
            for (let i = 1; i <= 30; i++) await postVerification(w.t, cut - i * 50, card);
            planted = await postForced(w.t, card, {
              type: 'PURCHASE',
              status: 'PENDING',
              amount: '1.00',
              createdAt: cut,
            });
            return page;
          }
          if (query.limit === 1 || planted === undefined) return page;
          const id = planted;
          if (window === slow && query.page === 2) {
            // The neighbour read the row COMPLETED and landed it; then this window finishes.
            for (let i = 0; i < 400 && mirroredStatus(id) !== 'COMPLETED'; i++)
              await new Promise((resolve) => setTimeout(resolve, 25));
            expect(mirroredStatus(id)).toBe('COMPLETED');
            return page;
          }
          const row = page.records.find((r) => r.transactionId === id);
          if (row === undefined) return page;
          const { total, limit } = page.pagination;
          if (slow === undefined && row.status === 'PENDING' && query.page === 1 && total > limit) {
            expect(total).toBeLessThanOrEqual(2 * limit);
            slow = window;
            const store = sandbox.context.store;
            store.atomically(() =>
              changeTransactionStatus(
                sandbox.context,
                store.transactions.get(id) as TransactionRecord,
                'COMPLETED',
              ),
            );
            return page;
          }
          // An answer written before the move: read it again, as it now is.
          return row.status === 'PENDING' && slow !== undefined
            ? api.listTransactions(query, options)
            : page;
        },
      }),
    });
    sandbox.faults.replace([]);
    expect(result.outcome).toBe('done');
    expect(slow).toBeDefined();
    const id = planted as string;
    expect(mirroredStatus(id)).toBe('COMPLETED');
    expect(compareMirror(sandbox, w.mirrorFile).transactionMismatches).toEqual([]);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const moves = db
        .prepare(
          "SELECT from_status || '>' || to_status FROM transaction_status_changes WHERE transaction_id = ? ORDER BY rowid",
        )
        .pluck()
        .all(id);
      // The mirror first landed it COMPLETED: no move, least of all back to PENDING.
      expect(moves).toEqual([]);
    } finally {
      db.close();
    }
  });
});
