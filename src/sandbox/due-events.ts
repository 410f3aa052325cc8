import { postTransaction } from './activity/card-activity.js';
import { processOrder } from './orders/order-processor.js';
import type { SandboxContext } from './sandbox-context.js';

/**
 * Everything that happens by itself with time: orders whose processing delay has passed and
 * late-posted transactions whose moment has come. `runDue` applies them in time order (an
 * order due before a posting is processed first); `arm` keeps a timer on the next one so the
 * state moves on while nobody asks.
 */
export class DueEvents {
  readonly #ctx: SandboxContext;
  /** Rows inserted, updated or deleted on the store's connection since it opened. */
  readonly #changes: () => number;
  /**
   * What {@link arm} last found: the next event's time (none: undefined), and the database's
   * changes then. While no row has changed since, no event can have been added or moved, so
   * nothing is due before that time.
   */
  #quiet: { readonly nextAt: number | undefined; readonly changes: number } | undefined;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(ctx: SandboxContext) {
    this.#ctx = ctx;
    const changes = ctx.store.db.prepare('SELECT total_changes()').pluck();
    this.#changes = () => changes.get() as number;
  }

  /**
   * Apply every event due at the service clock's now. Returns how many were applied. Called
   * before every request: when no row has changed since the last look and its next event is
   * not due yet, it answers from that look (one `total_changes()` instead of four queries).
   */
  runDue(): number {
    const { store, clock } = this.#ctx;
    const now = clock.now();
    const quiet = this.#quiet;
    if (
      quiet &&
      quiet.changes === this.#changes() &&
      (quiet.nextAt === undefined || now < quiet.nextAt)
    )
      return 0;
    let applied = 0;
    for (;;) {
      const order = store.orders.due(now, 1)[0];
      const txn = store.transactions.dueUnposted(now, 1)[0];
      if (!order && !txn) break;
      if (order && (!txn || (order.dueAt ?? now) <= txn.visibleAt)) {
        processOrder(this.#ctx, order, order.dueAt ?? now);
      } else if (txn) {
        store.atomically(() => postTransaction(this.#ctx, txn));
      }
      applied++;
    }
    this.arm();
    return applied;
  }

  /** Set the timer for the next due event (none in manual mode with nothing late to post). */
  arm(): void {
    if (this.#closed) return;
    const { store, clock } = this.#ctx;
    const candidates = [store.orders.nextDueAt(), store.transactions.nextUnpostedAt()].filter(
      (at): at is number => at !== undefined,
    );
    const nextAt = candidates.length === 0 ? undefined : Math.min(...candidates);
    this.#quiet = { nextAt, changes: this.#changes() };
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (nextAt === undefined) return;
    const wait = Math.max(0, nextAt - clock.now());
    // setTimeout caps at ~24.8 days; a longer wait just re-arms when it fires.
    this.#timer = setTimeout(() => this.#fire(), Math.min(wait, 2_147_000_000));
    this.#timer.unref();
  }

  #fire(): void {
    try {
      this.runDue();
    } catch (err) {
      this.#ctx.logger.error({ err }, 'processing due events failed');
    }
  }

  /** Stop the timer for good. */
  close(): void {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
  }
}
