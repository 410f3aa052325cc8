import { readMeta, type SandboxDatabase, writeMeta } from '../store/database.js';
import { hashHex } from './seeded-random.js';

/** The id prefixes the sandbox uses (reference-model section 1). */
export type IdPrefix = 'card' | 'ord' | 'txn' | 'off' | 'mch' | 'trd';

/**
 * Opaque ids, deterministic from the seed and a per-prefix counter kept in the state, so the
 * same seed and the same sequence of events give the same ids, across restarts too.
 */
export class IdGenerator {
  readonly #db: SandboxDatabase;
  readonly #seed: string;
  readonly #counters = new Map<IdPrefix, number>();

  constructor(db: SandboxDatabase, seed: string) {
    this.#db = db;
    this.#seed = seed;
  }

  /** The next id with `prefix`, e.g. `card_3f9a…`. */
  next(prefix: IdPrefix): string {
    return this.reserve(prefix, 1)();
  }

  /**
   * Reserve `count` ids at once (one state write instead of `count`), for bulk generation.
   * @returns a function handing them out in order; it throws past the reservation.
   */
  reserve(prefix: IdPrefix, count: number): () => string {
    const key = `counter:${prefix}`;
    const first = (this.#counters.get(prefix) ?? Number(readMeta(this.#db, key) ?? '0')) + 1;
    const last = first + count - 1;
    this.#counters.set(prefix, last);
    writeMeta(this.#db, key, String(last));
    let n = first;
    return () => {
      if (n > last) throw new RangeError(`reservation of ${count} ${prefix} ids exhausted`);
      return `${prefix}_${hashHex(20, this.#seed, prefix, String(n++))}`;
    };
  }
}
