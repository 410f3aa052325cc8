import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** Where a merchant's mirror stands in time, as the checks need it. */
export interface SyncedRange {
  readonly merchantId: string;
  /**
   * The end of the synced time range (`sync_progress`, i.e. the last completed sync's cutoff),
   * or the caller's; null when the merchant was never synced: time-based checks then skip.
   */
  readonly cutoff: string | null;
  /** Where the unbroken synced range ending at the cutoff starts; null when unknown. */
  readonly start: string | null;
  /**
   * Transactions are mirrored without a gap up to here: the cutoff, or the end of the tail
   * window read after it. A card balance read later cannot be checked. Null when unknown.
   */
  readonly through: string | null;
}

interface Range {
  start: number;
  end: number;
}

/**
 * The synced range of `merchantId`: `sync_progress` (history and lookback windows, up to each
 * run's cutoff) merged with the tail windows of `sync_windows` (from a cutoff to the upstream's
 * present), so a range that stopped short (a run that failed part-way) shows as such.
 */
export function readSyncedRange(
  db: SqliteDatabase,
  merchantId: string,
  cutoffOverride?: string,
): SyncedRange {
  const progress = db
    .prepare('SELECT start_at AS startAt, end_at AS endAt FROM sync_progress WHERE merchant_id = ?')
    .all(merchantId) as { startAt: string; endAt: string }[];
  const tails = db
    .prepare(
      `SELECT start_at AS startAt, end_at AS endAt FROM sync_windows
       WHERE merchant_id = ? AND kind = 'tail' AND outcome = 'done'
         AND start_at IS NOT NULL AND end_at IS NOT NULL`,
    )
    .all(merchantId) as { startAt: string; endAt: string }[];
  const toRange = (row: { startAt: string; endAt: string }): Range => ({
    start: Date.parse(row.startAt),
    end: Date.parse(row.endAt),
  });
  const done = progress.map(toRange);
  if (done.length === 0)
    return { merchantId, cutoff: cutoffOverride ?? null, start: null, through: null };
  const anchor = Math.max(...done.map((r) => r.end));
  const covering = merge([...done, ...tails.map(toRange)]).find(
    (r) => r.start <= anchor && anchor <= r.end,
  );
  return {
    merchantId,
    cutoff: cutoffOverride ?? new Date(anchor).toISOString(),
    start: covering ? new Date(covering.start).toISOString() : null,
    through: covering ? new Date(covering.end).toISOString() : null,
  };
}

/** Sort and merge ranges that overlap or touch. */
function merge(ranges: readonly Range[]): Range[] {
  const merged: Range[] = [];
  for (const range of [...ranges].sort((a, b) => a.start - b.start)) {
    const last = merged.at(-1);
    if (last && range.start <= last.end + 1) last.end = Math.max(last.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}
