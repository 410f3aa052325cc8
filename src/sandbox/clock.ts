/** The `meta` key under which the clock's offset survives a restart. */
export const CLOCK_OFFSET_KEY = 'clock_offset_ms';

/**
 * The last instant the service clock may reach: 9999-12-31T23:59:59.999Z, the last one a wire
 * timestamp (four-digit year) or a `Date` header can be written for.
 */
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The service's notion of "now": the wall clock plus an offset that the control surface moves. */
export interface ServiceClock {
  /** Epoch milliseconds of the service clock. */
  now(): number;
}

/** A clock that can be moved forward (never back: times already handed out must stay in the past). */
export class MovableClock implements ServiceClock {
  #offsetMs: number;
  readonly #wallClock: () => number;

  constructor(offsetMs = 0, wallClock: () => number = Date.now) {
    this.#offsetMs = offsetMs;
    this.#wallClock = wallClock;
  }

  now(): number {
    return this.#wallClock() + this.#offsetMs;
  }

  /** The current offset from the wall clock, in milliseconds. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /**
   * Move the clock forward by `ms`.
   * @throws RangeError for a negative or non-integer amount, or one past {@link LATEST_INSTANT}.
   */
  advance(ms: number): void {
    if (!Number.isSafeInteger(ms) || ms < 0)
      throw new RangeError('the clock only moves forward by whole milliseconds');
    if (!this.canAdvance(ms)) throw new RangeError('the clock cannot pass 9999-12-31');
    this.#offsetMs += ms;
  }

  /** Whether moving forward by `ms` keeps the clock at or before {@link LATEST_INSTANT}. */
  canAdvance(ms: number): boolean {
    return ms <= LATEST_INSTANT - this.now();
  }
}
