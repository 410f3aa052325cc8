import type { TimeRange } from './time-range.js';

interface Observed {
  readonly mid: number;
  /** Rows per millisecond. */
  readonly rate: number;
}

/**
 * What the parts of one split learn about the density of rows while they are read: each part's
 * count, from its first page. A part not yet read gets an estimate from the nearest parts read
 * on both sides, so a part lying between dense ones can be cut before its first page is
 * requested (that page would only be thrown away). Only a hint: any cut is correct, and a part
 * that still turns out too big is split on its own count.
 *
 * @example
 * const density = new SplitDensity(100);
 * density.observe({ start: 0, end: 99 }, 1000);
 * density.observe({ start: 200, end: 299 }, 3000);
 * density.estimate({ start: 100, end: 199 }); // about 1732 (the geometric mean)
 */
export class SplitDensity {
  readonly #seen: Observed[] = [];

  /** `limit`: the page size the window's first page reported. */
  constructor(readonly limit: number) {}

  /** Record a part's count, as its first page reported it. */
  observe(range: TimeRange, rows: number): void {
    const width = Math.max(1, range.end - range.start);
    this.#seen.push({ mid: (range.start + range.end) / 2, rate: rows / width });
  }

  /**
   * The rows `range` likely holds, interpolated geometrically between the nearest parts read
   * on either side; null unless both sides were read (extrapolating past the last part read
   * misjudges a density that rises or falls toward an end).
   */
  estimate(range: TimeRange): number | null {
    const mid = (range.start + range.end) / 2;
    let before: Observed | null = null;
    let after: Observed | null = null;
    for (const seen of this.#seen) {
      if (seen.mid < mid && (!before || seen.mid > before.mid)) before = seen;
      if (seen.mid > mid && (!after || seen.mid < after.mid)) after = seen;
    }
    if (!before || !after) return null;
    const share = (mid - before.mid) / (after.mid - before.mid);
    // Geometric: a density that grows by a factor per day (as a card base does) is met exactly;
    // a straight line between the two would overestimate, and a part cut too fine costs a
    // short last page for every piece.
    const rate = before.rate ** (1 - share) * after.rate ** share;
    return rate * Math.max(1, range.end - range.start);
  }
}

/**
 * The parts in the order to read them: both ends first, then the middle of each gap between
 * parts already ordered, so the parts read first spread over the whole range and those read
 * later lie between known counts.
 *
 * @example
 * coarseFirst([a, b, c, d, e]); // [a, e, c, b, d]
 */
export function coarseFirst<T>(parts: readonly T[]): T[] {
  if (parts.length <= 2) return [...parts];
  const order: T[] = [parts[0] as T, parts[parts.length - 1] as T];
  let gaps: [number, number][] = [[0, parts.length - 1]];
  while (gaps.length > 0) {
    const next: [number, number][] = [];
    for (const [lo, hi] of gaps) {
      if (hi - lo < 2) continue;
      const mid = Math.floor((lo + hi) / 2);
      order.push(parts[mid] as T);
      next.push([lo, mid], [mid, hi]);
    }
    gaps = next;
  }
  return order;
}
