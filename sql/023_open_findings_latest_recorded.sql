-- 023: open_findings takes the reconciliation recorded last as the newest, not the one with the
-- greatest `reconciled_at`.
--
-- `reconciled_at` is the host's clock. A reconciliation run while it was ahead (a host a day
-- fast, set back by NTP before the next night) stayed the newest: `in_latest_reconciliation`
-- said 1 for what that older run reported and 0 for what the night after it reported.
-- Reconciliations are recorded one at a time under the mirror lock, so the order they were
-- recorded in (`recon_runs.rowid`) is the order they ran in. The columns are unchanged.
DROP VIEW open_findings;

CREATE VIEW open_findings AS
-- One row per finding that currently holds: `findings` rows not resolved (state 'new' or
-- 'persisting' as of the reconciliation that last saw them), with their acknowledgement.
--   ack_state: 'none'; 'acknowledged' (out of the main report until ack_until, while expected
--     and actual stay the acknowledged values); 'expired' (ack_until has passed: the next
--     reconciliation puts it back in the report); 'changed' (the values moved since).
--   in_main_report: 1 unless acknowledged, i.e. it is (or will be again) in discrepancies.csv.
--   in_latest_reconciliation: 1 when the reconciliation recorded last (recon_runs) reported it:
--     it saw the finding, or ran its check for its merchant and kept it open (its record
--     skipped; the values are those of last_seen_run_id); 0 when its check or merchant did not
--     run then, so it holds as of an older run.
--   severity_rank: 1 error, 2 warning, 3 info, for ORDER BY.
--   offering_id: the card offering a PRECISION_VIOLATION is about (its terms), else NULL.
-- Expected, actual and delta are decimal text in the currency's exponent (or a status).
--   expected_minor, actual_minor, delta_minor: the same amounts as integer minor units, for
--     arithmetic; NULL where the check's values are no amounts (a status, a currency) or the
--     text is no amount of the currency.
-- Every finding, resolved ones too, is in `findings`; its history in `finding_events`.
WITH latest AS (
  SELECT r.run_id, r.coverage FROM recon_runs r ORDER BY r.rowid DESC LIMIT 1
),
latest_scope AS (
  SELECT DISTINCT json_extract(c.value, '$.check') AS check_code,
         json_extract(c.value, '$.merchantId') AS merchant_id
  FROM latest l, json_each(l.coverage) c
)
SELECT f.fingerprint, f.check_code, f.severity,
       CASE f.severity WHEN 'error' THEN 1 WHEN 'warning' THEN 2 ELSE 3 END AS severity_rank,
       f.merchant_id, f.card_id, f.transaction_id, f.order_no, f.merchant_order_no, f.trade_no,
       f.snapshot_at, f.currency, f.expected, f.actual, f.delta, f.detail, f.state,
       f.first_seen_at, f.first_seen_run_id, f.last_seen_at, f.last_seen_run_id, f.ack_state,
       f.ack_state <> 'acknowledged' AS in_main_report, f.ack_reason, f.ack_until, f.ack_at,
       (f.last_seen_run_id IS (SELECT run_id FROM latest)
         OR EXISTS (
           SELECT 1 FROM latest_scope s
           WHERE s.check_code = f.check_code AND s.merchant_id = f.merchant_id
         )) AS in_latest_reconciliation,
       f.offering_id, f.expected_minor, f.actual_minor, f.delta_minor
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
