import type { MerchantSyncContext } from './sync-context.js';
import { isoTime, lowerBound, type TimeRange } from './time-range.js';

/**
 * Keep the list of vanished rows (`vanished_transactions`) true to what the audit read: list
 * the mirrored rows of `surplusRanges` that the reading did not see (the upstream no longer
 * shows them, valid or malformed), adding each newly listed id to `vanished`; and take off the
 * list (and out of `vanished`) any row that the reading of `reread` saw again. By id: the
 * ranges may overlap, and summed per range, a dense millisecond that four surplus ranges
 * reached counted each of its lost rows four times.
 */
export function listVanished(
  vanished: Set<string>,
  context: MerchantSyncContext,
  merchantId: string,
  ranges: { readonly reread: readonly TimeRange[]; readonly surplusRanges: readonly TimeRange[] },
  seen: ReadonlySet<string>,
): void {
  const db = context.writers.db;
  const mirrored = db
    .prepare(
      `SELECT transaction_id, created_at FROM transactions
       WHERE merchant_id = ? AND created_at BETWEEN ? AND ?`,
    )
    .raw(true);
  const listed = db
    .prepare(
      `SELECT transaction_id FROM vanished_transactions
       WHERE merchant_id = ? AND created_at BETWEEN ? AND ?`,
    )
    .pluck();
  const list = db.prepare(
    `INSERT INTO vanished_transactions (transaction_id, merchant_id, created_at, run_id, found_at)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (transaction_id) DO NOTHING`,
  );
  const unlist = db.prepare('DELETE FROM vanished_transactions WHERE transaction_id = ?');
  const foundAt = isoTime(context.clock());
  db.transaction(() => {
    // Over what each window read: its range widened by a millisecond on both sides. A listed
    // row back on the millisecond before a range (under `--since`, the audit's first) was
    // counted by the upstream and read, but left on the list: its range read in every round.
    for (const r of ranges.reread) {
      const from = lowerBound(r.start, 1);
      for (const id of listed.all(merchantId, from, isoTime(r.end + 1)) as string[]) {
        if (!seen.has(id)) continue;
        unlist.run(id);
        // Listed by an earlier round of this run and back already: not gone, not reported.
        vanished.delete(id);
      }
    }
    for (const r of ranges.surplusRanges) {
      // All, not iterated: the connection cannot write while a statement still reads.
      const from = lowerBound(r.start);
      const rows = mirrored.all(merchantId, from, isoTime(r.end)) as [string, string][];
      for (const [id, createdAt] of rows)
        if (!seen.has(id) && list.run(id, merchantId, createdAt, context.runId, foundAt).changes)
          vanished.add(id);
    }
  })();
}
