import { createHash } from 'node:crypto';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';

type Generator = ReturnType<typeof xoroshiro128plus>;

function seedFrom(...parts: readonly string[]): number {
  return createHash('sha256').update(parts.join('\u0000')).digest().readInt32LE(0);
}

/**
 * A deterministic stream of random choices: the same seed and stream name give the same draws.
 * Each stream is independent, so adding draws to one never shifts another.
 */
export class SeededRandom {
  readonly #rng: Generator;

  constructor(seed: string, stream: string) {
    this.#rng = xoroshiro128plus(seedFrom(seed, stream));
  }

  /** A whole number in `[min, max]`. */
  int(min: number, max: number): number {
    return uniformInt(this.#rng, min, max);
  }

  /** True with probability `p` (resolution 1e-6). */
  chance(p: number): boolean {
    return this.int(0, 999_999) < Math.round(p * 1_000_000);
  }

  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(0, items.length - 1)];
    if (item === undefined) throw new RangeError('cannot pick from an empty list');
    return item;
  }

  /** `count` random decimal digits. */
  digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(this.int(0, 9));
    return out;
  }
}

/** A number in `[0, 1)` fixed by the seed and the parts: a draw that no order of events can shift. */
export function hashUnit(seed: string, ...parts: readonly string[]): number {
  const digest = createHash('sha256')
    .update([seed, ...parts].join('\u0000'))
    .digest();
  return digest.readUIntBE(0, 6) / 2 ** 48;
}

/** A hex string fixed by the seed and the parts. */
export function hashHex(length: number, seed: string, ...parts: readonly string[]): string {
  return createHash('sha256')
    .update([seed, ...parts].join('\u0000'))
    .digest('hex')
    .slice(0, length);
}
