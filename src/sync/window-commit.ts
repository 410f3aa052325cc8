import type { MalformedRecordError } from '../api/index.js';
import type { Transaction } from '../contract/index.js';
import type { WriteCounts } from '../mirror/transaction-writer.js';
import { quarantineEntries } from './quarantine-entries.js';
import { screenTransactions } from './record-screen.js';
import type { MerchantSyncContext } from './sync-context.js';
import { isoTime, mergeRanges, type TimeRange } from './time-range.js';

/** What kind of work a window was, as the run record shows it. */
export type WindowKind = 'history' | 'lookback' | 'tail' | 'unsettled' | 'card-range' | 'audit';

/** A window read and ready to land. */
export interface WindowCommit {
  readonly merchantId: string;
  readonly kind: WindowKind;
  readonly range: TimeRange;
  readonly filter?: object | undefined;
  readonly rows: Iterable<Transaction>;
  readonly rejected: readonly MalformedRecordError[];
  readonly expected: number | null;
  readonly fetched: number;
  readonly attempts: number;
  readonly startedAt: number;
  /** Add the range to the merchant's done ranges (history and lookback windows). */
  readonly markDone: boolean;
}

/**
 * Land a window: its rows upserted, its malformed records quarantined, its range added to the
 * done ranges and its record in `sync_windows`. Call inside a SQLite transaction (see
 * {@link WindowBatcher}), so all of it lands or none: a crash before the commit loses only the
 * reading; after it, nothing is read again.
 */
export function writeWindow(
  context: MerchantSyncContext,
  window: WindowCommit,
): WriteCounts & { quarantined: number } {
  const { writers } = context;
  const now = context.clock();
  const write = {
    merchantId: window.merchantId,
    runId: context.runId,
    observedAt: isoTime(now),
  };
  const { kept, refused } = screenTransactions(window.rows);
  const counts = writers.transactions.write(kept, write);
  const quarantined = writers.quarantine.write(
    [...quarantineEntries('transactions', window.rejected), ...refused],
    write,
  );
  if (window.markDone) {
    const done = writers.progress.read(window.merchantId);
    writers.progress.replace(window.merchantId, mergeRanges([...done, window.range]));
  }
  writers.runs.addWindow({
    runId: context.runId,
    merchantId: window.merchantId,
    kind: window.kind,
    startAt: isoTime(window.range.start),
    endAt: isoTime(window.range.end),
    filter: window.filter ? JSON.stringify(window.filter) : null,
    expected: window.expected,
    fetched: window.fetched,
    upserted: counts.inserted + counts.updated,
    attempts: window.attempts,
    durationMs: now - window.startedAt,
    outcome: 'done',
    finishedAt: isoTime(now),
  });
  return { ...counts, quarantined };
}
