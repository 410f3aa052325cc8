import type { Transaction } from '../contract/index.js';
import { isoTime, type TimeRange } from './time-range.js';

/**
 * The version read last of each row that two windows of one `syncWindows` (a merchant's windows
 * of a run, or one round of the audit's) may both read, so the window that lands last does not
 * write back an older read. Windows land in the order they are sent, not the order they read: a
 * row on the boundary two windows share (and their queries widen by 1 ms on both sides) read
 * PENDING by a slow window, then COMPLETED by its neighbour, was written back to PENDING when the
 * slow one landed after it. Only such rows are kept, until that `syncWindows` ends: those within
 * 1 ms of a window's edges, or every row of an audit window, whose ranges are counted out to their
 * extents and may overlap further (they are small).
 */
export class LastReads {
  readonly #rows = new Map<string, Transaction>();

  /** Note the rows of a page of a window over `range` as the page arrives. */
  note(range: TimeRange, whole: boolean, rows: readonly Transaction[]): void {
    const low = isoTime(range.start + 1);
    const high = isoTime(range.end - 1);
    for (const row of rows)
      if (whole || row.createdAt <= low || row.createdAt >= high)
        this.#rows.set(row.transactionId, row);
  }

  /** `row`, or the version of it another page of the batch read after it. */
  latest(row: Transaction): Transaction {
    return this.#rows.get(row.transactionId) ?? row;
  }
}
