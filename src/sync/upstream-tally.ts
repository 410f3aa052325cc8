import type { TransactionStatus } from '../contract/index.js';
import type { MerchantSyncContext } from './sync-context.js';
import type { Tally } from './tally.js';
import { isoTime, startTimeFilter, type TimeRange } from './time-range.js';

/**
 * The upstream's counts asked for per range: every row, then each status but DECLINED (the
 * rest). SETTLED too, although section 4 never moves a row out of it or out of DECLINED: a real
 * upstream's transitions are "not shown", and an expired authorisation (DECLINED) whose clearing
 * arrives (SETTLED) changed no other count.
 */
export const STATUS_FILTERS: readonly (TransactionStatus | undefined)[] = [
  undefined,
  'PENDING',
  'COMPLETED',
  'SETTLED',
];

/**
 * The upstream's tally over `range`: four `limit=1` requests (every row, PENDING, COMPLETED,
 * SETTLED), each widened by a millisecond on both sides (where the audit's extents hold no
 * mirrored row).
 */
export async function askUpstream(context: MerchantSyncContext, range: TimeRange): Promise<Tally> {
  const [rows = 0, pending = 0, completed = 0, settled = 0] = await Promise.all(
    STATUS_FILTERS.map(async (status) => {
      const page = await context.api.listTransactions(
        {
          ...startTimeFilter(range.start),
          endTime: isoTime(range.end + 1),
          ...(status ? { status } : {}),
          page: 1,
          limit: 1,
        },
        { signal: context.signal },
      );
      return page.pagination.total;
    }),
  );
  return { rows, pending, completed, settled };
}
