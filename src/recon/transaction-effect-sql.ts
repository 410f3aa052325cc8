/**
 * What transaction `t` does to its card's balance, in minor units, as reference-model.md
 * section 4 fixes it: DECLINED never moves money; PURCHASE and FEE hold from PENDING on; REFUND,
 * REVERSAL and VERIFICATION move once COMPLETED. NULL when an amount it needs is NULL (too
 * precise for its currency) or the type or status is unknown: the card cannot be checked then.
 */
export function transactionEffectSql(t: string): string {
  return `CASE
    WHEN ${t}.status = 'DECLINED' THEN 0
    WHEN ${t}.status NOT IN ('PENDING', 'COMPLETED', 'SETTLED') THEN NULL
    WHEN ${t}.type = 'PURCHASE' THEN -(${t}.amount_minor + ${t}.fee_minor)
    WHEN ${t}.type = 'FEE' THEN -${t}.amount_minor
    WHEN ${t}.type IN ('REFUND', 'REVERSAL') AND ${t}.status = 'PENDING' THEN 0
    WHEN ${t}.type IN ('REFUND', 'REVERSAL') THEN ${t}.amount_minor - ${t}.fee_minor
    WHEN ${t}.type = 'VERIFICATION' AND ${t}.status = 'PENDING' THEN 0
    WHEN ${t}.type = 'VERIFICATION' THEN -${t}.fee_minor
  END`;
}

/**
 * True when card balance read at `card.observed_at` could reflect row `t` (a transaction, or a
 * FEE record with columns `created`/`seen`): it was mirrored before that read, or it was created
 * before it (a sync reads the cards, then the transactions at least up to that moment). A
 * transaction created after the read, e.g. a purchase during the night, is left to the next
 * run, which reads the card again.
 */
export function visibleAtReadSql(created: string, seen: string, observed: string): string {
  return `(${created} <= ${observed} OR ${seen} <= ${observed})`;
}
