import type { CheckCode } from './check-code.js';

/** What a check counts: cards, orders, transactions, or intervals between balance snapshots. */
export type CoverageUnit = 'cards' | 'orders' | 'transactions' | 'intervals';

/** Records a check left out, and why. */
export interface CoverageSkip {
  readonly reason: string;
  readonly count: number;
  readonly unit: CoverageUnit;
}

/**
 * How much of one merchant's mirror a check could examine, and why the rest could not be
 * (reference-model.md section 6: every report states coverage).
 */
export interface CheckCoverage {
  readonly check: CheckCode;
  readonly merchantId: string;
  readonly examined: Readonly<Partial<Record<CoverageUnit, number>>>;
  readonly skipped: readonly CoverageSkip[];
}

/** Accumulates a check's coverage as it reads. */
export class CoverageTally {
  readonly #examined: Partial<Record<CoverageUnit, number>> = {};
  readonly #skipped = new Map<string, CoverageSkip>();

  /** Count `count` records of `unit` as examined (0 still shows the unit in the report). */
  examine(unit: CoverageUnit, count = 1): this {
    this.#examined[unit] = (this.#examined[unit] ?? 0) + count;
    return this;
  }

  /** Count `count` records of `unit` as left out for `reason`. */
  skip(unit: CoverageUnit, reason: string, count = 1): this {
    if (count <= 0) return this;
    const key = `${unit}\u0000${reason}`;
    const previous = this.#skipped.get(key);
    this.#skipped.set(key, { reason, unit, count: (previous?.count ?? 0) + count });
    return this;
  }

  /**
   * Add rows of `{ reason, n }` from a SQL `GROUP BY reason`: a null reason is examined.
   */
  addGrouped(unit: CoverageUnit, rows: readonly { reason: string | null; n: number }[]): this {
    this.examine(unit, 0);
    for (const row of rows) {
      if (row.reason === null) this.examine(unit, row.n);
      else this.skip(unit, row.reason, row.n);
    }
    return this;
  }

  /** The coverage of `check` for `merchantId`. */
  result(check: CheckCode, merchantId: string): CheckCoverage {
    return {
      check,
      merchantId,
      examined: { ...this.#examined },
      skipped: [...this.#skipped.values()].sort(
        (a, b) => compare(a.unit, b.unit) || b.count - a.count || compare(a.reason, b.reason),
      ),
    };
  }
}

/** Code-point order: the same in every locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
