/**
 * One account of a transaction that may explain a balance's difference from its ledger: the
 * effect the ledger counts that the balance may not have held (a late posting, a status change
 * after the balance was taken), and how far from that moment it lies.
 */
export interface ExplainingTerm {
  /** The transaction: two terms of one are two accounts of it, never both true. */
  readonly id: string;
  readonly effect: bigint;
  /** Milliseconds between the term and the moment the balance was taken. */
  readonly distance: number;
}

/**
 * Terms beyond which only leaving them all out, and every subset of the ones this many nearest
 * the moment the balance was taken, are tried.
 */
export const MAX_SUBSET_TERMS = 10;

/**
 * True when leaving some of `terms` out of `expected` gives `actual` (within `tolerance`): the
 * balance may have been taken before they moved it. Every subset is tried when there are few;
 * else leaving them all out, and every subset of the {@link MAX_SUBSET_TERMS} nearest that
 * moment, since what a balance missed is most likely what happened at about its time.
 * @example
 * explainedBySubset(90n, 100n, [{ id: 'txn_1', effect: 10n, distance: 5 }], 0n); // true
 */
export function explainedBySubset(
  actual: bigint,
  expected: bigint,
  terms: readonly ExplainingTerm[],
  tolerance: bigint,
): boolean {
  const near = (sum: bigint) => {
    const difference = actual - (expected - sum);
    return (difference < 0n ? -difference : difference) <= tolerance;
  };
  // A subset takes at most one term of a transaction: one with a term for each account (posted
  // after the moment, or changed after it) would otherwise be left out twice.
  const byTransaction = (list: readonly ExplainingTerm[]) => {
    const groups = new Map<string, bigint[]>();
    for (const t of list) groups.set(t.id, [...(groups.get(t.id) ?? []), t.effect]);
    return [...groups.values()];
  };
  let groups = byTransaction(terms);
  if (terms.length > MAX_SUBSET_TERMS) {
    if (near(groups.reduce((sum, effects) => sum + (effects[0] ?? 0n), 0n))) return true;
    groups = byTransaction(
      [...terms].sort((a, b) => a.distance - b.distance).slice(0, MAX_SUBSET_TERMS),
    );
  }
  let sums = new Set<bigint>([0n]);
  for (const effects of groups)
    sums = new Set([...sums, ...[...sums].flatMap((sum) => effects.map((e) => sum + e))]);
  sums.delete(0n);
  return [...sums].some(near);
}
