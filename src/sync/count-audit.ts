import type { MerchantSyncContext } from './sync-context.js';
import type { TransactionCounts } from './sync-result.js';
import { canSplit, isoTime, splitRange, type TimeRange } from './time-range.js';
import { syncWindows } from './transaction-sync.js';

/** What the closing count check found. */
export interface AuditCounts {
  /** Count requests sent. */
  queries: number;
  /** Ranges read again because the upstream counted more rows than the mirror holds. */
  reread: number;
  /** Ranges where the mirror holds rows the upstream no longer counts. */
  surplus: number;
}

const MAX_ROUNDS = 3;

/**
 * Close a merchant's sync by holding the mirror's counts against the upstream's over the whole
 * synced range: one request when they agree. Where the upstream counts more (a row posted late
 * into a range already read, even during this run), the range is halved until it is small,
 * then read again, so a missing row costs O(log n) count requests instead of a full re-read.
 *
 * Counts compare the mirror over both `[start, end]` and `[start - 1, end + 1]`, so the check
 * holds whether or not the upstream's time filters are inclusive.
 */
export async function auditCounts(
  context: MerchantSyncContext,
  merchantId: string,
  range: TimeRange,
  counts: TransactionCounts,
): Promise<AuditCounts> {
  const result: AuditCounts = { queries: 0, reread: 0, surplus: 0 };
  // Records quarantined by this run count as present: they were read, and reading them again
  // would not help. One quarantined by an earlier run is read again, in case it was repaired.
  const count = context.writers.db.prepare(
    `SELECT (SELECT count(*) FROM transactions
              WHERE merchant_id = @merchantId AND created_at BETWEEN @start AND @end)
          + (SELECT count(*) FROM quarantine
              WHERE merchant_id = @merchantId AND resource = 'transactions'
                AND resolved_at IS NULL AND last_run_id = @runId
                AND json_extract(raw_json, '$.createdAt') BETWEEN @start AND @end
                AND record_id NOT IN (SELECT transaction_id FROM transactions)) AS n`,
  );
  const mirrored = (start: number, end: number) =>
    (
      count.get({
        merchantId,
        runId: context.runId,
        start: isoTime(start),
        end: isoTime(end),
      }) as { n: number }
    ).n;
  const rowsPerWindow = context.settings.maxPagesPerWindow * 100;
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    let level: TimeRange[] = [range];
    const reread: TimeRange[] = [];
    while (level.length > 0) {
      const next: TimeRange[] = [];
      await Promise.all(
        level.map(async (r) => {
          const page = await context.api.listTransactions(
            { startTime: isoTime(r.start - 1), endTime: isoTime(r.end + 1), page: 1, limit: 1 },
            { signal: context.signal },
          );
          result.queries += 1;
          const upstream = page.pagination.total;
          const wide = mirrored(r.start - 1, r.end + 1);
          if (upstream < mirrored(r.start, r.end)) result.surplus += 1;
          if (upstream <= wide) return;
          if (upstream <= rowsPerWindow || !canSplit(r)) reread.push(r);
          else next.push(...splitRange(r, 2));
        }),
      );
      level = next;
    }
    if (reread.length === 0) break;
    result.reread += reread.length;
    context.logger.info(
      { merchantId, ranges: reread.length, round },
      'count check found rows posted late; reading them',
    );
    await syncWindows(
      context,
      merchantId,
      reread.map((r) => ({ kind: 'audit', range: r, markDone: false })),
      counts,
    );
  }
  if (result.surplus > 0)
    context.logger.warn(
      { merchantId, ranges: result.surplus },
      'the mirror holds transactions the upstream no longer counts',
    );
  return result;
}
