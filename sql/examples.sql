-- Example queries over the cardsync mirror: copy, adapt, run (docs/analysts.md).
--
-- Open the mirror read-only while a sync may be writing to it, e.g.
--   sqlite3 -readonly data/cardsync.sqlite
-- Every statement below only reads. Literal ids ('card_...', 'mch_...') are placeholders:
-- replace them. Sum `*_minor` columns (integers), never the decimal text and never REAL.
-- This file is not a migration (not named NNN_name.sql); a test runs every statement in it.

-- 1. Is the mirror fresh? One row per merchant: when its cards, transactions and balance were
--    last read, how the last run that tried it ended for it ('done'; else why, e.g. its key
--    refused), and the last reconciliation.
SELECT merchant_id, last_run_started_at, last_run_merchant_outcome, last_run_merchant_error,
       cards_read_at, transactions_synced_to, synced_ranges, quarantined, last_reconciled_at
FROM sync_freshness
ORDER BY merchant_id;

-- 2. What needs attention this morning: the findings of the main report per check and
--    severity (acknowledged ones left out, and those of a check or merchant the newest
--    reconciliation did not run, as discrepancies.csv leaves them out), new ones counted apart.
SELECT severity, check_code, count(*) AS findings, sum(state = 'new') AS new_findings
FROM open_findings
WHERE in_main_report AND in_latest_reconciliation
GROUP BY severity_rank, severity, check_code
ORDER BY severity_rank, findings DESC;

-- 3. Findings first seen by the newest reconciliation.
SELECT check_code, merchant_id, card_id, transaction_id, order_no, expected, actual, delta,
       detail
FROM open_findings
WHERE state = 'new' AND in_latest_reconciliation
ORDER BY severity_rank, check_code, merchant_id;

-- 4. Acknowledgements that end within 7 days (they come back into the report then), and ones
--    that already lapsed.
SELECT fingerprint, check_code, card_id, ack_state, ack_until, ack_reason
FROM open_findings
WHERE ack_state <> 'none'
  AND ack_until < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '+7 days')
ORDER BY ack_until;

-- 5. Cards whose reported balance differs from their ledger, largest difference first.
SELECT merchant_id, card_id, status, currency, balance, expected, difference, balance_read_at
FROM card_balance_check
WHERE check_result = 'mismatch'
ORDER BY abs(difference_minor) DESC, card_id;

-- 6. How many cards could be checked, and why the others could not.
SELECT merchant_id, check_result, coalesce(unchecked_reason, '') AS reason, count(*) AS cards
FROM card_balance_check
GROUP BY merchant_id, check_result, unchecked_reason
ORDER BY merchant_id, cards DESC;

-- 7. One card's ledger, entry by entry, with the running expected balance in minor units
--    (entries created after the balance was read are shown but not in the running total).
SELECT created_at, source, entry_type, status, coalesce(merchant_order_no, transaction_id) AS ref,
       effect, visible_at_read,
       sum(CASE WHEN visible_at_read THEN effect_minor END) OVER (
         ORDER BY created_at, source, coalesce(merchant_order_no, transaction_id)
       ) AS running_minor
FROM card_ledger
WHERE card_id = 'card_replace_me'
ORDER BY created_at, source, ref;

-- 8. Fees per offering and month, summed in minor units and printed exactly as decimal text
--    (the formatting pattern every view uses: integer division and remainder by the unit).
SELECT f.merchant_id, f.offering_id, f.offering_name, f.currency, substr(f.day, 1, 7) AS month,
       sum(f.fee_count) AS fee_count, sum(f.fees_minor) AS fees_minor,
       CASE
         WHEN x.exponent = 0 THEN CAST(sum(f.fees_minor) AS TEXT)
         ELSE (CASE WHEN sum(f.fees_minor) < 0 THEN '-' ELSE '' END)
              || (abs(sum(f.fees_minor)) / x.unit) || '.'
              || substr('000' || (abs(sum(f.fees_minor)) % x.unit), -x.exponent)
       END AS fees,
       sum(f.too_precise) AS too_precise
FROM fees_by_offering_day f
LEFT JOIN currency_exponents x ON x.currency = f.currency
GROUP BY f.merchant_id, f.offering_id, f.offering_name, f.currency, month
ORDER BY month, f.merchant_id, f.offering_id;

-- 9. Fees of journaled orders by kind (issuance, deposit, withdrawal, cancellation): the FEE
--    record whose trade_no is the order's order_no, in that record's currency.
SELECT merchant_id, kind, fee_currency, count(*) AS orders, sum(fee_minor) AS fees_minor
FROM order_outcomes
WHERE outcome = 'completed'
GROUP BY merchant_id, kind, fee_currency
ORDER BY merchant_id, kind;

-- 10. Orders the upstream has not settled yet, oldest first (ORDER_NOT_REFLECTED after an hour).
SELECT merchant_id, merchant_order_no, kind, order_no, submitted_at, amount, currency
FROM order_outcomes
WHERE outcome IN ('awaiting_outcome', 'not_accepted')
  AND submitted_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 hour')
ORDER BY submitted_at;

-- 11. Yesterday's activity (UTC) per merchant, type and status.
SELECT merchant_id, type, status, currency, transaction_count, amount, fee
FROM transactions_daily
WHERE day = date('now', '-1 day')
ORDER BY merchant_id, type, status;

-- 12. Card spending per UTC day over the last 30 days: completed and settled purchases.
SELECT merchant_id, day, currency, sum(transaction_count) AS purchases,
       sum(amount_minor) AS amount_minor, sum(fee_minor) AS fee_minor
FROM transactions_daily
WHERE type = 'PURCHASE' AND status IN ('COMPLETED', 'SETTLED')
  AND day >= date('now', '-30 days')
GROUP BY merchant_id, day, currency
ORDER BY day, merchant_id;

-- 13. The merchant balance now, and the change since the previous sync.
SELECT merchant_id, currency, balance, observed_at, previous_balance, change
FROM latest_merchant_balance
ORDER BY merchant_id;

-- 14. Every balance snapshot of one merchant with its change from the one before.
SELECT observed_at, balance, balance_minor,
       balance_minor - lag(balance_minor) OVER (ORDER BY observed_at, snapshot_id) AS change_minor
FROM merchant_balances
WHERE merchant_id = 'mch_replace_me'
ORDER BY observed_at, snapshot_id;

-- 15. PENDING transactions older than 7 days (STALE_PENDING), oldest first.
SELECT merchant_id, transaction_id, card_id, type, amount, currency, created_at
FROM transactions
WHERE status = 'PENDING'
  AND created_at < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-7 days')
ORDER BY created_at;

-- 16. Transactions of a UTC date range (the dates are placeholders too): timestamps are ISO 8601
--     UTC text, so they compare as text; a bare date sorts before every instant of that day.
SELECT transaction_id, card_id, type, status, amount, fee, currency, created_at
FROM transactions
WHERE created_at >= '2026-03-01' AND created_at < '2026-03-08'
ORDER BY created_at, transaction_id;

-- 17. Top merchant names by completed and settled purchase amount, per currency (the 20 first
--     of each currency: a LIMIT would cut off the currencies that sort last).
SELECT currency, merchant_name, purchases, amount_minor, too_precise
FROM (
  SELECT currency, merchant_name, count(*) AS purchases, sum(amount_minor) AS amount_minor,
         sum(amount_minor IS NULL) AS too_precise,
         row_number() OVER (
           PARTITION BY currency ORDER BY sum(amount_minor) DESC, merchant_name
         ) AS place
  FROM transactions
  WHERE type = 'PURCHASE' AND status IN ('COMPLETED', 'SETTLED')
  GROUP BY currency, merchant_name
)
WHERE place <= 20
ORDER BY currency, place;

-- 18. A card's status and balance as runs found them: a row when first seen and one per change,
--     so at any run it is the latest row at or before that run.
SELECT observed_at, run_id, status, balance
FROM card_history
WHERE card_id = 'card_replace_me'
ORDER BY observed_at;

-- 19. Status changes the mirror observed in the newest sync run (the one recorded last: its
-- started_at is the host's clock, which may have been set back since an earlier run).
SELECT c.transaction_id, t.type, c.from_status, c.to_status, c.observed_at
FROM transaction_status_changes c
JOIN transactions t ON t.transaction_id = c.transaction_id
WHERE c.run_id = (SELECT run_id FROM sync_runs ORDER BY rowid DESC LIMIT 1)
ORDER BY c.observed_at, c.transaction_id;

-- 20. Upstream records set aside because they failed validation, by resource and reason.
SELECT merchant_id, resource, reason, count(*) AS records, max(last_seen_at) AS last_seen_at
FROM quarantine
WHERE resolved_at IS NULL
GROUP BY merchant_id, resource, reason
ORDER BY records DESC;

-- 21. The history of one finding: opened, resolved, reopened, acknowledged, lapsed.
SELECT e.at, e.event, e.run_id, e.detail
FROM finding_events e
WHERE e.fingerprint = 'fingerprint_replace_me'
ORDER BY e.at;

-- 22. Findings resolved by the newest reconciliation (resolved.csv of that run).
SELECT f.check_code, f.merchant_id, f.card_id, f.transaction_id, f.order_no, f.first_seen_at,
       f.resolved_at
FROM findings f
WHERE f.state = 'resolved'
  AND f.resolved_run_id = (
    SELECT run_id FROM recon_runs ORDER BY rowid DESC LIMIT 1
  )
ORDER BY f.check_code, f.merchant_id;

-- 23. Offerings and their terms now, and how many versions of the terms the mirror has seen.
SELECT o.merchant_id, o.id, o.name, o.currency, o.issuance_fee, o.deposit_fee_percent,
       o.min_load_amount, o.max_load_amount, o.version,
       (SELECT count(*) FROM cards c WHERE c.card_offering_id = o.id) AS cards
FROM offerings o
ORDER BY o.merchant_id, o.name;

-- 24. How far the open mismatches of balances and fees put the money off, per merchant, check
--     and currency: their differences (delta = actual - expected) summed as integer minor units
--     (delta_minor) and printed exactly. Checks whose values are no amounts (a status, a
--     currency) have NULL *_minor.
SELECT f.merchant_id, f.check_code, f.currency, count(*) AS findings,
       sum(f.delta_minor) AS delta_minor,
       CASE
         WHEN x.exponent = 0 THEN CAST(sum(f.delta_minor) AS TEXT)
         ELSE (CASE WHEN sum(f.delta_minor) < 0 THEN '-' ELSE '' END)
              || (abs(sum(f.delta_minor)) / x.unit) || '.'
              || substr('000' || (abs(sum(f.delta_minor)) % x.unit), -x.exponent)
       END AS delta
FROM open_findings f
JOIN currency_exponents x ON x.currency = f.currency
WHERE f.in_main_report AND f.in_latest_reconciliation AND f.delta_minor IS NOT NULL
  AND f.check_code IN ('CARD_BALANCE_MISMATCH', 'MERCHANT_BALANCE_MISMATCH',
    'ISSUANCE_FEE_MISMATCH', 'DEPOSIT_FEE_MISMATCH', 'WITHDRAWAL_FEE_MISMATCH')
GROUP BY f.merchant_id, f.check_code, f.currency
ORDER BY f.merchant_id, f.check_code, f.currency;
