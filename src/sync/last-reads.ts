import type { Transaction } from '../contract/index.js';
import { isoTime, type TimeRange } from './time-range.js';

/** A row some windows read and have not sent yet, and the version read last while one had not. */
interface Pending {
  /** Reads noted and not yet sent. */
  unsent: number;
  /** The version read last, once a read came while an earlier one was unsent. */
  latest?: Transaction;
}

/**
 * The version read last of each row that two windows of one `syncWindows` (a merchant's windows
 * of a run, or one round of the audit's) may both read, so the window that lands last does not
 * write back an older read. Windows land in the order they are sent, not the order they read: a
 * row on the boundary two windows share (and their queries widen by 1 ms on both sides) read
 * PENDING by a slow window, then COMPLETED by its neighbour, was written back to PENDING when the
 * slow one landed after it. Only such rows are noted: those within 1 ms of a window's edges, or
 * every row of an audit window, whose ranges are counted out to their extents and may overlap
 * further. A row is held only while a read of it is unsent, and its version only when a second
 * read came meanwhile: holding every noted row to the end kept a dense millisecond's rows whole
 * (200,000 rows in one millisecond: 319 MiB at the sync's peak, against 271 MiB so).
 */
export class LastReads {
  readonly #pending = new Map<string, Pending>();
  /** The rows noted (as read), so that only their own sending counts as a read sent. */
  readonly #noted = new WeakSet<Transaction>();

  /** Note the rows of a page of a window over `range` as the page arrives. */
  note(range: TimeRange, whole: boolean, rows: readonly Transaction[]): void {
    const low = isoTime(range.start + 1);
    const high = isoTime(range.end - 1);
    for (const row of rows) {
      if (!whole && row.createdAt > low && row.createdAt < high) continue;
      if (this.#noted.has(row)) continue;
      this.#noted.add(row);
      const pending = this.#pending.get(row.transactionId);
      if (pending === undefined) this.#pending.set(row.transactionId, { unsent: 1 });
      else {
        pending.unsent += 1;
        pending.latest = row;
      }
    }
  }

  /**
   * `row` as it goes to the writer: the version of it another window read after it, if any. The
   * writer lands what it is sent in order, so once no read of the row is unsent it is forgotten.
   */
  sent(row: Transaction): Transaction {
    const pending = this.#pending.get(row.transactionId);
    if (pending === undefined) return row;
    const latest = pending.latest ?? row;
    if (this.#noted.has(row)) {
      this.#noted.delete(row);
      pending.unsent -= 1;
      if (pending.unsent === 0) this.#pending.delete(row.transactionId);
    }
    return latest;
  }

  /** How many rows are held (read and not all sent): for tests. */
  get held(): number {
    return this.#pending.size;
  }
}
