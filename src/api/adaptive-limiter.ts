/** A slot in the limiter, held for one request; release it once the answer (or failure) is in. */
export interface Permit {
  /** Order in which permits were granted; tells which requests started after a decrease. */
  readonly ticket: number;
  /** Give the slot back; calling it again does nothing. */
  release(): void;
}

/** What the limiter runs on; tests pass a fake clock and an instant sleep. */
export interface AdaptiveLimiterOptions {
  /** The ceiling and starting point of the limit. */
  readonly max: number;
  readonly now?: () => number;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

interface Waiter {
  grant(): void;
}

/**
 * An AIMD concurrency gate shared by every call of one client, so a 429 slows all workers at
 * once instead of each hammering on its own schedule.
 *
 * The limit starts at `max`. A 429 halves it (never below 1), but only once per congestion
 * event: the requests already in flight when it was halved were sent at the old rate, and their
 * 429s say nothing new, so only a 429 to a request granted after the decrease halves it again.
 * A Retry-After also sets a shared "not before" moment that every new request waits for. Each
 * success adds 1/limit (one whole step per `limit` successes, counted in integers so that no
 * float drift leaves the limit a hair below the next step), up to `max`.
 * @example
 * const permit = await limiter.acquire(signal);
 * try { ... } finally { permit.release(); }
 */
export class AdaptiveLimiter {
  readonly #max: number;
  readonly #now: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  #limit: number;
  #successes = 0;
  #inFlight = 0;
  #granted = 0;
  /** Permits with a ticket up to this one belong to the last congestion event. */
  #barrier = 0;
  #notBefore = 0;
  readonly #waiters: Waiter[] = [];

  constructor(options: AdaptiveLimiterOptions) {
    this.#max = options.max;
    this.#limit = options.max;
    this.#now = options.now ?? Date.now;
    this.#sleep = options.sleep;
  }

  /** The current number of requests allowed in flight. */
  get limit(): number {
    return this.#limit;
  }

  /** Requests holding a permit now. */
  get inFlight(): number {
    return this.#inFlight;
  }

  /** Epoch ms before which no new request starts (0 when none is set). */
  get notBefore(): number {
    return this.#notBefore;
  }

  /**
   * Wait until the shared pause is over and a slot is free, then take it.
   * @param waitedUntil the caller already slept until this moment (its own Retry-After wait),
   * so a pause ending no later than it is not waited for twice.
   * @throws the signal's reason when it aborts while waiting.
   */
  async acquire(signal?: AbortSignal, waitedUntil = Number.NEGATIVE_INFINITY): Promise<Permit> {
    let honoured = waitedUntil;
    for (;;) {
      signal?.throwIfAborted();
      // Sleep toward each pause moment once: with an injected sleep the clock may not move.
      while (this.#notBefore > honoured && this.#notBefore > this.#now()) {
        const target = this.#notBefore;
        await this.#sleep(target - this.#now(), signal);
        honoured = target;
      }
      const permit = await this.#slot(signal);
      // A 429 may have set a later pause while this request queued for its slot.
      if (this.#notBefore <= honoured || this.#notBefore <= this.#now()) return permit;
      permit.release();
    }
  }

  /** Record a success: additive increase. */
  recordSuccess(): void {
    if (this.#limit >= this.#max) return;
    this.#successes += 1;
    if (this.#successes >= this.#limit) {
      this.#successes = 0;
      this.#limit += 1;
      this.#drain();
    }
  }

  /**
   * Record a 429 to the request holding `permit`: halve the limit unless this congestion event
   * already did, and pause new requests for `retryAfterMs` when the upstream named a wait.
   * @returns true when the limit was decreased (never when it was 1 already).
   */
  recordRateLimited(permit: Permit, retryAfterMs?: number): boolean {
    if (retryAfterMs !== undefined && retryAfterMs > 0) {
      this.#notBefore = Math.max(this.#notBefore, this.#now() + retryAfterMs);
    }
    if (permit.ticket <= this.#barrier) return false;
    const before = this.#limit;
    this.#limit = Math.max(1, Math.floor(this.#limit / 2));
    this.#successes = 0;
    this.#barrier = this.#granted;
    // At 1 there is nothing left to halve: a 429 then is one more retry, not news for the log.
    return this.#limit < before;
  }

  #slot(signal: AbortSignal | undefined): Promise<Permit> {
    if (this.#waiters.length === 0 && this.#inFlight < this.#limit) {
      return Promise.resolve(this.#grant());
    }
    return new Promise<Permit>((resolve, reject) => {
      const onAbort = () => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal?.reason);
      };
      const waiter: Waiter = {
        grant: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.#grant());
        },
      };
      this.#waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  #grant(): Permit {
    this.#inFlight += 1;
    this.#granted += 1;
    const ticket = this.#granted;
    let released = false;
    return {
      ticket,
      release: () => {
        if (released) return;
        released = true;
        this.#inFlight -= 1;
        this.#drain();
      },
    };
  }

  #drain(): void {
    while (this.#waiters.length > 0 && this.#inFlight < this.#limit) {
      this.#waiters.shift()?.grant();
    }
  }
}
