import type { CheckCode } from './check-code.js';
import type { Finding } from './finding.js';
import type { IdKey } from './finding-identity.js';

/** What a check counts: cards, orders, transactions, or intervals between balance snapshots. */
export type CoverageUnit = 'cards' | 'orders' | 'transactions' | 'intervals' | 'offerings';

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

/**
 * What a check could not decide: the identities of the records it skipped, or `all` when it
 * examined nothing. `ids` maps the identifying keys of a finding (`identityKeysOf`, joined by
 * {@link undecidedKey}) to the skipped records' ids under those keys (joined by
 * {@link ID_SEPARATOR}): an open finding stays open only when its own identity is listed, so a
 * skipped card keeps a finding about the card open, not one about a transaction of it.
 */
export type Undecided =
  | { readonly all: true }
  | { readonly all?: false; readonly ids: ReadonlyMap<string, ReadonlySet<string>> };

/** The separator of the ids a grouped count lists (`reasonCounts`' `subject`). */
export const ID_SEPARATOR = '\u001f';

/** The key of {@link Undecided}'s `ids` for a finding identified by `keys`. */
export function undecidedKey(keys: readonly IdKey[]): string {
  return keys.join('+');
}

/** Accumulates a check's coverage as it reads. */
export class CoverageTally {
  readonly #examined: Partial<Record<CoverageUnit, number>> = {};
  readonly #skipped = new Map<string, CoverageSkip>();
  readonly #undecided = new Map<string, Set<string>>();
  #all = false;

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
   * Add rows of `{ reason, n }` from a SQL `GROUP BY reason`: a null reason is examined. Rows
   * that list the skipped records' ids (`ids`, joined by {@link ID_SEPARATOR}) leave them open
   * under `key`.
   */
  addGrouped(
    unit: CoverageUnit,
    rows: readonly { reason: string | null; n: number; ids?: string | null }[],
    key?: IdKey,
  ): this {
    this.examine(unit, 0);
    for (const row of rows) {
      if (row.reason === null) this.examine(unit, row.n);
      else this.skip(unit, row.reason, row.n);
      if (row.reason !== null && key !== undefined && row.ids)
        this.leaveOpen(key, row.ids.split(ID_SEPARATOR));
    }
    return this;
  }

  /**
   * Findings identified by `key` (docs/findings.md, "identified by") whose id is one of `ids`
   * cannot resolve this run: those records were skipped. An identity of several keys
   * (OVER_REFUND's card and tradeNo) gives each record's ids in the order of `key`. A finding
   * identified otherwise is not kept open by these, even when it names one of the ids.
   */
  leaveOpen(key: IdKey | readonly IdKey[], ids: Iterable<string | readonly string[]>): this {
    const name = undecidedKey(typeof key === 'string' ? [key] : key);
    const set = this.#undecided.get(name) ?? new Set<string>();
    this.#undecided.set(name, set);
    for (const id of ids) set.add(typeof id === 'string' ? id : id.join(ID_SEPARATOR));
    return this;
  }

  /** No finding of the check can resolve this run: it could examine nothing. */
  leaveAllOpen(): this {
    this.#all = true;
    return this;
  }

  /** The check's outcome: `findings`, its coverage, and what it left undecided. */
  outcome(check: CheckCode, merchantId: string, findings: readonly Finding[]) {
    const undecided: Undecided = this.#all ? { all: true } : { ids: this.#undecided };
    return { findings, coverage: this.result(check, merchantId), undecided };
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
