import type { MerchantSyncContext } from './sync-context.js';
import type { TransactionCounts } from './sync-result.js';
import { type WindowCommit, writeWindow } from './window-commit.js';

/** Rows that make a batch worth committing. */
const BATCH_ROWS = 20_000;
/** The longest a finished window waits for its commit. */
const BATCH_MS = 2_000;

/**
 * Commits finished windows together, several to one SQLite transaction. Each window still
 * lands whole with its done range, but the fixed cost of a commit (the WAL frames of the same
 * index pages written again, the commit record) is paid once per batch instead of once per
 * window, which halves the cost of a row on a large first sync. A crash loses at most the
 * finished windows of one batch, which the next run reads again.
 */
export class WindowBatcher {
  readonly #context: MerchantSyncContext;
  readonly #counts: TransactionCounts;
  #pending: WindowCommit[] = [];
  #rows = 0;
  #oldest = 0;

  constructor(context: MerchantSyncContext, counts: TransactionCounts) {
    this.#context = context;
    this.#counts = counts;
  }

  /** Queue a finished window; commits the batch when it is large or old enough. */
  add(window: WindowCommit, rows: number): void {
    if (this.#pending.length === 0) this.#oldest = this.#context.clock();
    this.#pending.push(window);
    this.#rows += rows;
    if (this.#rows >= BATCH_ROWS || this.#context.clock() - this.#oldest >= BATCH_MS) this.flush();
  }

  /** Commit every queued window in one transaction. */
  flush(): void {
    if (this.#pending.length === 0) return;
    const batch = this.#pending;
    this.#pending = [];
    this.#rows = 0;
    const written = this.#context.writers.atomically(() =>
      batch.map((window) => writeWindow(this.#context, window)),
    );
    for (const w of written) {
      this.#counts.inserted += w.inserted;
      this.#counts.updated += w.updated;
      this.#counts.unchanged += w.unchanged;
      this.#counts.quarantined += w.quarantined;
    }
  }
}
