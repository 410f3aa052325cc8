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
  /** Rows that make a batch worth committing. */
  readonly batchRows: number;
  /** The longest a finished item waits before its batch is sent. */
  readonly batchMs: number;
  readonly clock: () => number;
}

/**
 * Sends finished work (windows, card pages) to the writer thread in batches, several to one
 * SQLite transaction: each item still lands whole, but the fixed cost of a commit (the WAL
 * frames of the same index pages written again, the commit record) is paid once per batch
 * instead of once per item. One batch lands while the next fills, which keeps both threads
 * busy and bounds the rows held in memory; when the disk falls behind, {@link add} waits, which
 * holds back the fetching. A crash loses at most the batches not yet landed, which the next
 * run reads again.
 */
export class CommitBatcher<T, C> {
  readonly #options: CommitBatcherOptions<T, C>;
  #inFlight: Promise<void> | null = null;
  #pending: T[] = [];
  #rows = 0;
  #oldest = 0;
  #failure: unknown = null;

  constructor(options: CommitBatcherOptions<T, C>) {
    this.#options = options;
  }

  /** Queue a finished item of `rows` rows; sends the batch when it is large or old enough. */
  async add(item: T, rows: number): Promise<void> {
    this.#throwIfFailed();
    const { clock, batchRows, batchMs } = this.#options;
    if (this.#pending.length === 0) this.#oldest = clock();
    this.#pending.push(item);
    this.#rows += rows;
    if (this.#rows >= batchRows || clock() - this.#oldest >= batchMs) {
      while (this.#inFlight) await this.#inFlight;
      this.#send();
    }
    this.#throwIfFailed();
  }

  /** Send what is queued and wait until every batch has landed. */
  async flush(): Promise<void> {
    while (this.#inFlight) await this.#inFlight;
    this.#send();
    while (this.#inFlight) await this.#inFlight;
    this.#throwIfFailed();
  }

  #send(): void {
    if (this.#pending.length === 0 || this.#failure) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#rows = 0;
    const landing = this.#options.send(batch).then(
      (counts) => this.#options.landed(counts),
      (error: unknown) => {
        this.#failure ??= error;
      },
    );
    const tracked = landing.finally(() => {
      if (this.#inFlight === tracked) this.#inFlight = null;
    });
    this.#inFlight = tracked;
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
  }
}
