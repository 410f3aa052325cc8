-- 007: a finding may be about a card offering.
--
-- PRECISION_VIOLATION also reports an offering whose current terms (minLoadAmount,
-- maxLoadAmount, issuanceFee) have more fractional digits than its currency allows; such a
-- finding names the offering, which no other id column can hold. open_findings is recreated
-- with the new column at its end (the others keep their places).
ALTER TABLE findings ADD COLUMN offering_id TEXT;

DROP VIEW open_findings;

CREATE VIEW open_findings AS
-- One row per finding that currently holds: `findings` rows not resolved (state 'new' or
-- 'persisting' as of the reconciliation that last saw them), with their acknowledgement.
--   ack_state: 'none'; 'acknowledged' (out of the main report until ack_until, while expected
--     and actual stay the acknowledged values); 'expired' (ack_until has passed: the next
--     reconciliation puts it back in the report); 'changed' (the values moved since).
--   in_main_report: 1 unless acknowledged, i.e. it is (or will be again) in discrepancies.csv.
--   in_latest_reconciliation: 1 when the newest reconciliation (recon_runs) reported it; 0
--     when its check or merchant did not run then, so it holds as of an older run.
--   severity_rank: 1 error, 2 warning, 3 info, for ORDER BY.
--   offering_id: the card offering a PRECISION_VIOLATION is about (its terms), else NULL.
-- Expected, actual and delta are decimal text in the currency's exponent (or a status).
-- Every finding, resolved ones too, is in `findings`; its history in `finding_events`.
SELECT f.fingerprint, f.check_code, f.severity,
       CASE f.severity WHEN 'error' THEN 1 WHEN 'warning' THEN 2 ELSE 3 END AS severity_rank,
       f.merchant_id, f.card_id, f.transaction_id, f.order_no, f.merchant_order_no, f.trade_no,
       f.snapshot_at, f.currency, f.expected, f.actual, f.delta, f.detail, f.state,
       f.first_seen_at, f.first_seen_run_id, f.last_seen_at, f.last_seen_run_id, f.ack_state,
       f.ack_state <> 'acknowledged' AS in_main_report, f.ack_reason, f.ack_until, f.ack_at,
       f.last_seen_run_id IS (
         SELECT r.run_id FROM recon_runs r ORDER BY r.reconciled_at DESC, r.run_id DESC LIMIT 1
       ) AS in_latest_reconciliation,
       f.offering_id
FROM (
  SELECT findings.*,
         CASE
           WHEN ack_reason IS NULL OR ack_until IS NULL THEN 'none'
           WHEN ack_until <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now') THEN 'expired'
           WHEN ack_expected IS NOT expected OR ack_actual IS NOT actual THEN 'changed'
           ELSE 'acknowledged'
         END AS ack_state
  FROM findings
  WHERE state <> 'resolved'
) f;
