/**
 * The upstream's clock, as its `Date` headers bound it. A header names the second its answer was
 * written in (truncated), and that moment lies between the request's sending and the answer's
 * arrival on the local clock: so each answer bounds the offset (upstream minus local) to
 * `[date - arrived, date + 1000 - sent]`. The bounds of every answer are intersected; answers
 * that fall across second boundaries narrow them to a round trip or so. An answer outside them
 * (the upstream's clock or the local one was set) starts them afresh.
 *
 * The estimate is the local clock when it lies within the bounds (a host kept in time by NTP
 * stays exact to the millisecond), else the middle of the bounds: off by half a second at worst
 * after one answer, by half a round trip once answers have crossed a second. So the times the
 * sync stamps a read with compare with the upstream's `createdAt`s even when this host's clock
 * is minutes off.
 * @example
 * const clock = new UpstreamClock();
 * clock.observe(parseHttpDate(response.headers.date), sentAt, Date.now());
 * clock.now(); // epoch ms on the upstream's clock
 */
export class UpstreamClock {
  readonly #localNow: () => number;
  #low = Number.NEGATIVE_INFINITY;
  #high = Number.POSITIVE_INFINITY;

  constructor(localNow: () => number = Date.now) {
    this.#localNow = localNow;
  }

  /** Take in an answer whose `Date` header said `date`, sent and arrived at local times given. */
  observe(date: number, sent: number, arrived: number): void {
    const low = date - arrived;
    const high = date + 1000 - sent;
    if (low > this.#high || high < this.#low) {
      this.#low = low;
      this.#high = high;
      return;
    }
    this.#low = Math.max(this.#low, low);
    this.#high = Math.min(this.#high, high);
  }

  /** The offset to add to the local clock (0 while it agrees), or undefined before any answer. */
  offset(): number | undefined {
    if (this.#low === Number.NEGATIVE_INFINITY) return undefined;
    if (this.#agrees()) return 0;
    return Math.round((this.#low + this.#high) / 2);
  }

  /** Epoch ms on the upstream's clock now, or undefined before any answer. */
  now(): number | undefined {
    const offset = this.offset();
    return offset === undefined ? undefined : this.#localNow() + offset;
  }

  /**
   * Epoch ms on the upstream's clock now at the earliest the bounds allow (the local clock while
   * it lies within them), or undefined before any answer: a time that is not after the
   * upstream's present, where {@link now} may be up to half a second (or half a slow round trip)
   * after it.
   */
  earliest(): number | undefined {
    if (this.#low === Number.NEGATIVE_INFINITY) return undefined;
    const local = this.#localNow();
    return this.#agrees() ? local : local + this.#low;
  }

  /** Whether the local clock lies within the bounds the answers give the offset. */
  #agrees(): boolean {
    return this.#low <= 0 && this.#high >= 0;
  }
}
