/**
 * `CASE` arms (over the `journal` CTE as `j`) for why a money order's charged fee cannot be
 * checked: not an accepted order, no outcome yet, failed, a fee not final yet (a PENDING FEE
 * record), or a FEE amount too precise to read.
 */
export const OUTCOME_REASONS = `WHEN j.unlinkable IS NOT NULL THEN j.unlinkable
           WHEN j.fee_id IS NULL THEN 'no outcome yet (no FEE record)'
           WHEN j.succeeded = 0 THEN 'failed (FEE record DECLINED): no fee charged'
           WHEN j.fee_status = 'PENDING' THEN 'FEE record still PENDING: the fee charged is not final'
           WHEN j.fee_amount_minor IS NULL THEN 'FEE amount too precise for its currency (PRECISION_VIOLATION)'`;
