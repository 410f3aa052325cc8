/** A row as the index sees it: its rowid, its sort key and the partitions it belongs to. */
export interface IndexedRow {
  readonly row: number;
  readonly createdAt: number;
  readonly id: string;
  readonly keys: readonly string[];
}

/** One page of rowids, newest first, and how many rows the partition holds in the window. */
export interface IndexPage {
  readonly rows: number[];
  readonly total: number;
}

/**
 * Rowids kept sorted by (`createdAt`, id) in several partitions (e.g. "merchant", "merchant +
 * status"), so that a page at any offset, with or without a time window, is two binary
 * searches and a slice instead of SQLite stepping over every skipped row: a page at offset
 * 900,000 costs the same as the first. Arrays are kept oldest first because new rows are
 * almost always the newest: they append instead of shifting the whole array.
 */
export class RecencyIndex {
  readonly #partitions = new Map<string, number[]>();
  // Indexed by rowid: SQLite rowids are dense, so plain arrays beat maps in memory and speed.
  readonly #createdAt: number[] = [];
  readonly #ids: string[] = [];

  /** The index of every row in `rows` (order does not matter). */
  static build(rows: Iterable<IndexedRow>): RecencyIndex {
    const index = new RecencyIndex();
    for (const r of rows) {
      index.#createdAt[r.row] = r.createdAt;
      index.#ids[r.row] = r.id;
      for (const key of r.keys) {
        let list = index.#partitions.get(key);
        if (!list) {
          list = [];
          index.#partitions.set(key, list);
        }
        list.push(r.row);
      }
    }
    for (const list of index.#partitions.values()) list.sort((a, b) => index.#compare(a, b));
    return index;
  }

  #compare(a: number, b: number): number {
    const ta = this.#createdAt[a] as number;
    const tb = this.#createdAt[b] as number;
    if (ta !== tb) return ta - tb;
    const ia = this.#ids[a] as string;
    const ib = this.#ids[b] as string;
    return ia < ib ? -1 : ia > ib ? 1 : 0;
  }

  /** First position in `list` whose row sorts at or after `row`. */
  #position(list: readonly number[], row: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#compare(list[mid] as number, row) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose `createdAt` is at least `time` (or above it, when `after`). */
  #timePosition(list: readonly number[], time: number, after: boolean): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const t = this.#createdAt[list[mid] as number] as number;
      if (t < time || (after && t === time)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Add a row to its partitions. */
  add(r: IndexedRow): void {
    this.#createdAt[r.row] = r.createdAt;
    this.#ids[r.row] = r.id;
    for (const key of r.keys) {
      let list = this.#partitions.get(key);
      if (!list) {
        list = [];
        this.#partitions.set(key, list);
      }
      const last = list[list.length - 1];
      if (last === undefined || this.#compare(last, r.row) < 0) list.push(r.row);
      else list.splice(this.#position(list, r.row), 0, r.row);
    }
  }

  /** Remove a row from the partitions named (it must be in them). */
  remove(row: number, keys: readonly string[]): void {
    for (const key of keys) {
      const list = this.#partitions.get(key);
      if (!list) continue;
      const at = this.#position(list, row);
      if (list[at] === row) list.splice(at, 1);
    }
  }

  /**
   * A page of partition `key`, newest first, within `[startTime, endTime]` (both inclusive,
   * either open).
   */
  page(
    key: string,
    window: { startTime?: number; endTime?: number; offset: number; limit: number },
  ): IndexPage {
    const list = this.#partitions.get(key) ?? [];
    const lo =
      window.startTime === undefined ? 0 : this.#timePosition(list, window.startTime, false);
    const hi =
      window.endTime === undefined ? list.length : this.#timePosition(list, window.endTime, true);
    const total = Math.max(0, hi - lo);
    const rows: number[] = [];
    const first = hi - 1 - window.offset;
    for (let i = first; i >= lo && rows.length < window.limit; i--) rows.push(list[i] as number);
    return { rows, total };
  }
}

/**
 * A store's {@link RecencyIndex}, built from its rows on first use and kept current by its
 * writes. It counts its builds and writes, so a unit of work that rolls back after any of them
 * can forget the index (it may hold rows that never were) and have it rebuilt on next use.
 */
export class LazyRecencyIndex {
  readonly #rows: () => Iterable<IndexedRow>;
  #index: RecencyIndex | undefined;
  #writes = 0;

  constructor(rows: () => Iterable<IndexedRow>) {
    this.#rows = rows;
  }

  /** Builds and writes so far. */
  get writes(): number {
    return this.#writes;
  }

  /** Whether the index is built (writes need to keep it current only then). */
  get built(): boolean {
    return this.#index !== undefined;
  }

  /** The index, built now if it was not. */
  get(): RecencyIndex {
    if (!this.#index) {
      this.#index = RecencyIndex.build(this.#rows());
      this.#writes++;
    }
    return this.#index;
  }

  /** The index for a write about to be made on it, counted; undefined when it is not built. */
  forWrite(): RecencyIndex | undefined {
    if (this.#index) this.#writes++;
    return this.#index;
  }

  /** Forget the index (after writes that bypassed the store, or a rolled-back transaction). */
  invalidate(): void {
    this.#index = undefined;
  }
}
