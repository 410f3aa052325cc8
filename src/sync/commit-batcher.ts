/** What a landed item wrote, as both windows and card pages count it. */
export interface LandedCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  quarantined: number;
}

/** A `landed` callback that adds what each item wrote into `counts`. */
export function addLandedTo(counts: LandedCounts): (written: readonly LandedCounts[]) => void {
  return (written) => {
    for (const w of written) {
      counts.inserted += w.inserted;
      counts.updated += w.updated;
      counts.unchanged += w.unchanged;
      counts.quarantined += w.quarantined;
    }
  };
}

/** Options of a {@link CommitBatcher}. */
export interface CommitBatcherOptions<T, C> {
  /** Land a batch in one SQLite transaction (on the writer thread); answers item by item. */
  readonly send: (items: T[]) => Promise<readonly C[]>;
  /** Called with what each item of a landed batch wrote. */
  readonly landed: (counts: readonly C[]) => void;
  /**
   * The rows of a batch: it takes waiting items up to this many rows (at least one item), and
   * {@link CommitBatcher.add} waits while this many wait behind a landing batch.
   */
  readonly batchRows: number;
}

/**
 * Sends finished work (windows, card pages) to the writer thread in batches, several to one
 * SQLite transaction: each item still lands whole, but the fixed cost of a commit (the WAL
 * frames of the same index pages written again, the commit record) is paid once per batch
 * instead of once per item. A batch goes as soon as the writer is free: an item that finds no
 * batch landing is sent at once, and what finished while one landed goes as the next batch
 * the moment it has landed (up to `batchRows` rows). So batches grow only when the disk is the
 * bottleneck, and while it is not, no finished item waits longer than one landing: the last
 * windows of a run land right behind the pages that brought them. When `batchRows` rows wait,
 * {@link add} waits too, which holds back the fetching instead of piling rows up in memory. A
 * crash loses at most the batches not yet landed, which the next run reads again.
 */
export class CommitBatcher<T, C> {
  readonly #options: CommitBatcherOptions<T, C>;
  #inFlight: Promise<void> | null = null;
  #pending: { readonly item: T; readonly rows: number }[] = [];
  #rows = 0;
  #failure: unknown = null;

  constructor(options: CommitBatcherOptions<T, C>) {
    this.#options = options;
  }

  /** Queue a finished item of `rows` rows: sent at once if no batch is landing, else next. */
  async add(item: T, rows: number): Promise<void> {
    this.#throwIfFailed();
    this.#pending.push({ item, rows });
    this.#rows += rows;
    if (!this.#inFlight) this.#send();
    while (this.#rows >= this.#options.batchRows && this.#inFlight) await this.#inFlight;
    this.#throwIfFailed();
  }

  /** Send what is queued and wait until every batch has landed. */
  async flush(): Promise<void> {
    if (!this.#inFlight) this.#send();
    while (this.#inFlight) await this.#inFlight;
    this.#throwIfFailed();
  }

  /** Send the oldest waiting items, up to `batchRows` rows, as one batch. */
  #send(): void {
    if (this.#pending.length === 0 || this.#failure) return;
    let taken = 0;
    let rows = 0;
    while (taken < this.#pending.length && (taken === 0 || rows < this.#options.batchRows)) {
      rows += (this.#pending[taken] as { rows: number }).rows;
      taken += 1;
    }
    const batch = this.#pending.splice(0, taken).map((waiting) => waiting.item);
    this.#rows -= rows;
    const landing = this.#options.send(batch).then(
      (counts) => this.#options.landed(counts),
      (error: unknown) => {
        this.#failure ??= error;
      },
    );
    const tracked = landing.finally(() => {
      if (this.#inFlight !== tracked) return;
      this.#inFlight = null;
      // What finished while this batch landed goes next, as one batch.
      this.#send();
    });
    this.#inFlight = tracked;
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
  }
}
