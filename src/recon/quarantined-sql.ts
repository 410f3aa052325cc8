/**
 * SQL naming what the merchant's quarantined transactions stand for. A malformed record the
 * sync set aside (table `quarantine`, not yet resolved by a valid version) is missing from the
 * mirror, so a check that needs every transaction of a card, or an order's FEE record, cannot
 * judge them: it leaves them out, with this reason, instead of reporting a false discrepancy.
 */

/** Why a record is left out while a quarantined transaction may belong to it. */
export const QUARANTINED_REASON =
  'a transaction of it is in quarantine (malformed upstream record): the mirror lacks it';

/**
 * `quarantined_transactions (card_id, trade_no)`: the `cardId` and `tradeNo` of the raw JSON of
 * each unresolved quarantined transaction of `@merchantId` (NULL where the raw record lacks one).
 */
export const QUARANTINED_CTE = `quarantined_transactions AS MATERIALIZED (
  SELECT CASE json_valid(raw_json) WHEN 1 THEN json_extract(raw_json, '$.cardId') END AS card_id,
         CASE json_valid(raw_json) WHEN 1 THEN json_extract(raw_json, '$.tradeNo') END AS trade_no
  FROM quarantine
  WHERE merchant_id = @merchantId AND resource = 'transactions' AND resolved_at IS NULL
)`;
