import type { MerchantSyncContext } from './sync-context.js';
import type { TransactionCounts, UnsettledCounts } from './sync-result.js';
import { syncWindows, type WindowJob } from './transaction-sync.js';

/** A mirrored transaction whose status may still move. */
interface WatchedRow {
  readonly transactionId: string;
  readonly cardId: string;
  readonly createdAt: string;
}

/**
 * The statuses that may still move, by reference-model section 4: anything PENDING, and a
 * COMPLETED purchase or refund (which settles). DECLINED and SETTLED are final, and so is
 * COMPLETED for a VERIFICATION, REVERSAL or FEE, whose lifecycles end there.
 */
const UNSETTLED_LISTINGS = [
  { status: 'PENDING' },
  { status: 'COMPLETED', type: 'PURCHASE' },
  { status: 'COMPLETED', type: 'REFUND' },
] as const;

/**
 * Catch status changes of rows older than the lookback, at a cost proportional to the
 * unsettled rows rather than to the history: list what the upstream still shows in each
 * unsettled status over the span of the mirror's unsettled rows (the changes among those land
 * by upsert), then look up, card by card over just their time span, the watched rows that no
 * longer appear there: they moved to a final status.
 */
export async function refreshUnsettled(
  context: MerchantSyncContext,
  merchantId: string,
  before: number,
  counts: TransactionCounts,
): Promise<UnsettledCounts> {
  const watched = context.writers.db
    .prepare(
      `SELECT transaction_id AS transactionId, card_id AS cardId, created_at AS createdAt
       FROM transactions
       WHERE merchant_id = ? AND created_at < ?
         AND (status = 'PENDING' OR (status = 'COMPLETED' AND type IN ('PURCHASE', 'REFUND')))`,
    )
    .all(merchantId, new Date(before).toISOString()) as WatchedRow[];
  const result: UnsettledCounts = {
    outcome: 'done',
    watched: watched.length,
    changed: 0,
    vanished: 0,
  };
  if (watched.length === 0) return result;
  const updatedBefore = counts.updated;
  let earliest = before - 1;
  for (const row of watched) earliest = Math.min(earliest, Date.parse(row.createdAt));
  const span = { start: earliest, end: before - 1 };
  const listings: WindowJob[] = UNSETTLED_LISTINGS.map((filter) => ({
    kind: 'unsettled',
    range: span,
    markDone: false,
    filter,
  }));
  const listed = await syncWindows(context, merchantId, listings, counts, { collectIds: true });
  const moved = watched.filter((row) => !listed.seen?.has(row.transactionId));
  const byCard = new Map<string, { start: number; end: number }>();
  for (const row of moved) {
    const at = Date.parse(row.createdAt);
    const range = byCard.get(row.cardId);
    byCard.set(
      row.cardId,
      range
        ? { start: Math.min(range.start, at), end: Math.max(range.end, at) }
        : { start: at, end: at },
    );
  }
  const lookups: WindowJob[] = [...byCard].map(([cardId, range]) => ({
    kind: 'card-range',
    range,
    markDone: false,
    filter: { cardId },
  }));
  const found = await syncWindows(context, merchantId, lookups, counts, { collectIds: true });
  result.vanished = moved.filter((row) => !found.seen?.has(row.transactionId)).length;
  result.changed = counts.updated - updatedBefore;
  if (result.vanished > 0)
    context.logger.warn(
      { merchantId, vanished: result.vanished },
      'transactions in the mirror no longer shown by the upstream',
    );
  return result;
}
