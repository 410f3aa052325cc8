import type { Transaction } from '../contract/index.js';
import type { MirrorWriters } from '../mirror/mirror-writers.js';
import type { QuarantinedRecord } from '../mirror/quarantine-writer.js';
import type { WriteCounts } from '../mirror/transaction-writer.js';
import { screenTransactions } from './record-screen.js';
import { isoTime, lowerBound, mergeRanges, type TimeRange } from './time-range.js';

/** What kind of work a window was, as the run record shows it. */
export type WindowKind = 'history' | 'lookback' | 'tail' | 'audit';

/**
 * A window read and ready to land. Plain data only: it crosses to the writer thread by
 * structured clone.
 */
export interface WindowCommit {
  readonly merchantId: string;
  readonly kind: WindowKind;
  readonly range: TimeRange;
  readonly filter?: object | undefined;
  readonly rows: readonly Transaction[];
  /** Records the client refused, with the reason. */
  readonly quarantined: readonly QuarantinedRecord[];
  readonly expected: number | null;
  readonly fetched: number;
  readonly attempts: number;
  readonly startedAt: number;
  /** When the window's last page was read, on the local clock (the run record's time). */
  readonly finishedAt: number;
  /** The same moment on the upstream's clock: the rows' first-seen time (see `readTime`). */
  readonly readAt: number;
  /** Add the range to the merchant's done ranges (history and lookback windows). */
  readonly markDone: boolean;
  /**
   * Rows of a window too large for one batch, landed ahead of it ({@link windowParts}): its
   * rows only, with no quarantine, done range or record, which come with its last part.
   */
  readonly ahead?: boolean;
  /** What the parts landed ahead of this one upserted, so that its record counts the window. */
  readonly upsertedAhead?: number;
}

/** What landing a window did. */
export type WindowCounts = WriteCounts & { quarantined: number };

/**
 * Land a window: its rows upserted, its malformed records quarantined, its range added to the
 * done ranges and its record in `sync_windows`. Call inside a SQLite transaction (the writer
 * thread puts a batch of windows in one), so all of it lands or none: a crash before the
 * commit loses only the reading; after it, nothing is read again.
 */
export function writeWindow(
  writers: MirrorWriters,
  runId: string,
  window: WindowCommit,
): WindowCounts {
  const write = {
    merchantId: window.merchantId,
    runId,
    observedAt: isoTime(window.readAt),
  };
  const { kept, refused } = screenTransactions(window.rows);
  const { conflicting = [], ...counts } = writers.transactions.write(kept, write);
  const quarantined = writers.quarantine.write(
    [...window.quarantined, ...refused, ...conflicting],
    write,
  );
  if (window.ahead) return { ...counts, quarantined };
  if (window.markDone) {
    const done = writers.progress.read(window.merchantId);
    writers.progress.replace(window.merchantId, mergeRanges([...done, window.range]));
  }
  writers.runs.addWindow({
    runId,
    merchantId: window.merchantId,
    kind: window.kind,
    startAt: lowerBound(window.range.start),
    endAt: isoTime(window.range.end),
    filter: window.filter ? JSON.stringify(window.filter) : null,
    expected: window.expected,
    fetched: window.fetched,
    upserted: counts.inserted + counts.updated + (window.upsertedAhead ?? 0),
    attempts: window.attempts,
    durationMs: window.finishedAt - window.startedAt,
    outcome: 'done',
    finishedAt: isoTime(window.finishedAt),
  });
  return { ...counts, quarantined };
}

/**
 * Cut a window's rows into parts of at most `partRows`: every part but the last lands ahead
 * (`ahead`), the last with the window's quarantine, done range and record. A window of one
 * millisecond cannot be cut in time, and may hold any number of rows: crossing to the writer
 * thread whole, 60,000 of them ran its heap out (re-read, they are held twice: as read and as
 * stored). A crash between parts leaves rows without their done range, which the next run
 * reads again (the upsert makes that harmless).
 */
export function windowParts(window: WindowCommit, partRows: number): WindowCommit[] {
  if (window.rows.length <= partRows) return [window];
  const parts: WindowCommit[] = [];
  for (let at = 0; at + partRows < window.rows.length; at += partRows)
    parts.push({
      ...window,
      rows: window.rows.slice(at, at + partRows),
      quarantined: [],
      markDone: false,
      ahead: true,
    });
  const rest = window.rows.length - parts.length * partRows;
  parts.push({ ...window, rows: window.rows.slice(window.rows.length - rest) });
  return parts;
}
