-- 012: a finding's expected, actual and delta also as integer minor units (`*_minor`).
--
-- Money columns of the mirror come as exact decimal text with an integer `*_minor` beside each
-- (job-interface.md, "The mirror"); findings kept `expected`, `actual` and `delta` as text only,
-- so an analyst had to parse text to sum or compare them. Each now has its `*_minor`: minor
-- units of the finding's currency for a check whose values are amounts (docs/findings.md,
-- "Values"), NULL for one that reports a card status (ORDER_NOT_REFLECTED), currency codes
-- (CURRENCY_MISMATCH), an amount too precise for its currency (PRECISION_VIOLATION, which has no
-- minor units by definition) or nothing (ORPHAN_TRANSACTION, UNJOURNALED_CARD), and NULL where
-- the text is no amount of the currency: not a plain decimal, more fractional digits than the
-- currency allows, beyond 2^53 - 1 minor units, or the currency unknown. The reconciliation
-- writes them with each finding (src/recon/finding-minor.ts, the same list of checks); the
-- findings already stored are filled in here by that rule, resolved ones too.
-- ack_expected and ack_actual stay text: they are only compared with expected and actual, to
-- tell whether an acknowledged finding changed (ack_state).
-- open_findings is recreated with the three columns at its end (the others keep their places).
ALTER TABLE findings ADD COLUMN expected_minor INTEGER;
ALTER TABLE findings ADD COLUMN actual_minor INTEGER;
ALTER TABLE findings ADD COLUMN delta_minor INTEGER;

-- The findings already stored, by the rule of src/recon/finding-minor.ts: the checks whose
-- values are amounts, in a currency of currency_exponents; each value read as toMinor
-- (src/money/decimal.ts) reads it: an optional minus, digits, and optionally a point followed by
-- one to `exponent` digits. Its minor units are those digits with the fraction padded to the
-- exponent, leading zeros dropped, and none past 2^53 - 1 (16 digits).
WITH money_findings AS (
  SELECT f.fingerprint, f.expected, f.actual, f.delta, x.exponent
  FROM findings f
  JOIN currency_exponents x ON x.currency = f.currency
  WHERE f.check_code IN ('CARD_BALANCE_MISMATCH', 'ISSUANCE_FEE_MISMATCH',
    'DEPOSIT_FEE_MISMATCH', 'WITHDRAWAL_FEE_MISMATCH', 'LOAD_OUT_OF_BOUNDS',
    'DUPLICATE_TRANSACTION', 'OVER_REFUND', 'ACTIVITY_ON_INACTIVE_CARD', 'NEGATIVE_BALANCE',
    'MERCHANT_BALANCE_MISMATCH', 'STALE_PENDING')
),
money_values (fingerprint, name, text, exponent) AS (
  SELECT fingerprint, 'expected', expected, exponent FROM money_findings
  UNION ALL SELECT fingerprint, 'actual', actual, exponent FROM money_findings
  UNION ALL SELECT fingerprint, 'delta', delta, exponent FROM money_findings
),
signed AS (
  SELECT fingerprint, name, exponent, substr(text, 1, 1) = '-' AS negative,
         CASE WHEN substr(text, 1, 1) = '-' THEN substr(text, 2) ELSE text END AS body
  FROM money_values
  WHERE text IS NOT NULL
),
parts AS (
  SELECT fingerprint, name, exponent, negative,
         CASE WHEN instr(body, '.') = 0 THEN body
              ELSE substr(body, 1, instr(body, '.') - 1) END AS whole,
         CASE WHEN instr(body, '.') = 0 THEN NULL ELSE substr(body, instr(body, '.') + 1) END
           AS fraction
  FROM signed
),
digits AS (
  SELECT fingerprint, name, negative,
         ltrim(whole || substr(coalesce(fraction, '') || '000', 1, exponent), '0') AS magnitude
  FROM parts
  WHERE whole <> '' AND whole NOT GLOB '*[^0-9]*'
    AND (fraction IS NULL
      OR (fraction <> '' AND fraction NOT GLOB '*[^0-9]*' AND length(fraction) <= exponent))
),
minor_units AS (
  SELECT fingerprint, name,
         CASE WHEN negative THEN -CAST(magnitude AS INTEGER)
              ELSE CAST(magnitude AS INTEGER) END AS minor
  FROM digits
  -- Text of equal length compares as the numbers do.
  WHERE length(magnitude) < 16 OR (length(magnitude) = 16 AND magnitude <= '9007199254740991')
)
UPDATE findings
SET expected_minor = m.expected_minor, actual_minor = m.actual_minor, delta_minor = m.delta_minor
FROM (
  SELECT fingerprint,
         max(CASE name WHEN 'expected' THEN minor END) AS expected_minor,
         max(CASE name WHEN 'actual' THEN minor END) AS actual_minor,
         max(CASE name WHEN 'delta' THEN minor END) AS delta_minor
  FROM minor_units
  GROUP BY fingerprint
) m
WHERE m.fingerprint = findings.fingerprint;

DROP VIEW open_findings;

CREATE VIEW open_findings AS
-- One row per finding that currently holds: `findings` rows not resolved (state 'new' or
-- 'persisting' as of the reconciliation that last saw them), with their acknowledgement.
--   ack_state: 'none'; 'acknowledged' (out of the main report until ack_until, while expected
--     and actual stay the acknowledged values); 'expired' (ack_until has passed: the next
--     reconciliation puts it back in the report); 'changed' (the values moved since).
--   in_main_report: 1 unless acknowledged, i.e. it is (or will be again) in discrepancies.csv.
--   in_latest_reconciliation: 1 when the newest reconciliation (recon_runs) reported it: it saw
--     the finding, or ran its check for its merchant and kept it open (its record skipped; the
--     values are those of last_seen_run_id); 0 when its check or merchant did not run then, so
--     it holds as of an older run.
--   severity_rank: 1 error, 2 warning, 3 info, for ORDER BY.
--   offering_id: the card offering a PRECISION_VIOLATION is about (its terms), else NULL.
-- Expected, actual and delta are decimal text in the currency's exponent (or a status).
--   expected_minor, actual_minor, delta_minor: the same amounts as integer minor units, for
--     arithmetic; NULL where the check's values are no amounts (a status, a currency) or the
--     text is no amount of the currency.
-- Every finding, resolved ones too, is in `findings`; its history in `finding_events`.
WITH latest AS (
  SELECT r.run_id, r.coverage FROM recon_runs r ORDER BY r.reconciled_at DESC, r.run_id DESC
  LIMIT 1
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
