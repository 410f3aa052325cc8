import type { TransactionCounts } from './sync-result.js';
import type { WindowCommit } from './window-commit.js';
import type { WindowWriter } from './window-writer.js';

/** Rows that make a batch worth committing. */
const BATCH_ROWS = 20_000;
/** The longest a finished window waits before its batch is sent. */
const BATCH_MS = 2_000;
/** Batches sent and not yet landed before new windows wait: bounds the memory of a slow disk. */
const MAX_IN_FLIGHT = 2;

/**
 * Sends finished windows to the writer thread in batches, several to one SQLite transaction.
 * Each window still lands whole with its done range, but the fixed cost of a commit (the WAL
 * frames of the same index pages written again, the commit record) is paid once per batch
 * instead of once per window. A crash loses at most the batches not yet landed, which the next
 * run reads again. When the disk falls behind, {@link add} waits, which holds back the fetching.
 */
export class WindowBatcher {
  readonly #writer: Pick<WindowWriter, 'commit'>;
  readonly #runId: string;
  readonly #counts: TransactionCounts;
  readonly #clock: () => number;
  readonly #inFlight = new Set<Promise<void>>();
  #pending: WindowCommit[] = [];
  #rows = 0;
  #oldest = 0;
  #failure: unknown = null;

  constructor(
    writer: Pick<WindowWriter, 'commit'>,
    options: { runId: string; counts: TransactionCounts; clock: () => number },
  ) {
    this.#writer = writer;
    this.#runId = options.runId;
    this.#counts = options.counts;
    this.#clock = options.clock;
  }

  /** Queue a finished window; sends the batch when it is large or old enough. */
  async add(window: WindowCommit, rows: number): Promise<void> {
    this.#throwIfFailed();
    if (this.#pending.length === 0) this.#oldest = this.#clock();
    this.#pending.push(window);
    this.#rows += rows;
    if (this.#rows >= BATCH_ROWS || this.#clock() - this.#oldest >= BATCH_MS) this.#send();
    while (this.#inFlight.size >= MAX_IN_FLIGHT) await Promise.race(this.#inFlight);
    this.#throwIfFailed();
  }

  /** Send what is queued and wait until every batch has landed. */
  async flush(): Promise<void> {
    this.#send();
    await Promise.all(this.#inFlight);
    this.#throwIfFailed();
  }

  #send(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#rows = 0;
    const landed = this.#writer.commit(this.#runId, batch).then(
      (written) => {
        for (const w of written) {
          this.#counts.inserted += w.inserted;
          this.#counts.updated += w.updated;
          this.#counts.unchanged += w.unchanged;
          this.#counts.quarantined += w.quarantined;
        }
      },
      (error: unknown) => {
        this.#failure ??= error;
      },
    );
    const tracked = landed.finally(() => this.#inFlight.delete(tracked));
    this.#inFlight.add(tracked);
  }

  #throwIfFailed(): void {
    if (this.#failure) throw this.#failure;
  }
}
