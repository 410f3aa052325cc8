-- 004: documented views for analysts (docs/analysts.md; example queries in sql/examples.sql).
--
-- Views hold no data: they read the tables of 001-003 each time they are queried, so they are
-- always as fresh as the last commit of the sync or the reconciliation. Each one's own comment
-- (inside the CREATE VIEW, so `.schema <view>` in the sqlite3 shell and a tool's DDL tab show
-- it too) says what one row is and how to use it.
--
-- Money: every amount is summed in integer minor units (`*_minor`) and never as REAL; the
-- decimal text beside each sum is formatted from those integers with `currency_exponents`. A
-- `*_minor` that is NULL in a table (more fractional digits than the currency allows, or an
-- unknown currency: PRECISION_VIOLATION) is left out of the sums and counted in `too_precise`.
-- Days are UTC days, the first ten characters of the ISO 8601 UTC timestamps.
--
-- These names and columns are part of the mirror's interface: change a view only with a new
-- migration that drops and recreates it, adding columns rather than renaming them. A later
-- migration that drops or changes a column these views read must recreate them as well.

CREATE VIEW currency_exponents (currency, exponent, unit) AS
-- One row per ISO 4217 currency cardsync knows (src/money/currency.ts; a test keeps the two
-- equal): `exponent` is its number of fractional digits, `unit` = 10^exponent, the minor units
-- in one major unit. The other views join it to print minor units as exact decimal text; a
-- currency missing here prints NULL rather than a guess.
VALUES
  ('AED', 2, 100), ('AUD', 2, 100), ('BHD', 3, 1000), ('BRL', 2, 100), ('CAD', 2, 100),
  ('CHF', 2, 100), ('CLP', 0, 1), ('CNY', 2, 100), ('CZK', 2, 100), ('DKK', 2, 100),
  ('EUR', 2, 100), ('GBP', 2, 100), ('HKD', 2, 100), ('HUF', 2, 100), ('IDR', 2, 100),
  ('ILS', 2, 100), ('INR', 2, 100), ('ISK', 0, 1), ('JOD', 3, 1000), ('JPY', 0, 1),
  ('KRW', 0, 1), ('KWD', 3, 1000), ('MXN', 2, 100), ('MYR', 2, 100), ('NOK', 2, 100),
  ('NZD', 2, 100), ('OMR', 3, 1000), ('PHP', 2, 100), ('PLN', 2, 100), ('SAR', 2, 100),
  ('SEK', 2, 100), ('SGD', 2, 100), ('THB', 2, 100), ('TND', 3, 1000), ('TRY', 2, 100),
  ('TWD', 2, 100), ('UGX', 0, 1), ('USD', 2, 100), ('VND', 0, 1), ('XAF', 0, 1),
  ('XOF', 0, 1), ('ZAR', 2, 100);

CREATE VIEW order_outcomes AS
-- One row per order of the merchant's journal (`orders`), with its outcome as the upstream shows
-- it: the FEE transaction whose trade_no is the order's order_no (reference-model.md section 3;
-- the earliest by created_at, then transaction_id, should there be more than one).
--   outcome: completed (FEE COMPLETED or SETTLED), failed (FEE DECLINED), fee_pending (FEE
--     PENDING), awaiting_outcome (accepted, no FEE record mirrored yet), not_accepted
--     (SUBMITTED, no order_no yet), unlinkable (no order_no), rejected (REJECTED by the
--     upstream: never an order), topup (TOPUP: not an API order, it has no FEE record).
--   card_id: the card the FEE record names (the order's card once linked; NULL until then);
--     journal_card_id: the card the journal names (NULL for ISSUE and TOPUP).
--   outcome_at / outcome_seen_at: the FEE record's created_at / when the mirror first saw it.
-- Use it to follow orders: `WHERE outcome = 'awaiting_outcome'` lists the orders the upstream
-- has not settled (ORDER_NOT_REFLECTED once older than the grace period).
WITH fee_records AS (
  SELECT merchant_id, trade_no, transaction_id, card_id, status, amount, amount_minor, created_at,
         first_seen_at
  FROM (
    SELECT t.*, row_number() OVER (
             PARTITION BY t.merchant_id, t.trade_no ORDER BY t.created_at, t.transaction_id
           ) AS rank
    FROM transactions t
    WHERE t.type = 'FEE'
  )
  WHERE rank = 1
)
SELECT o.merchant_id, o.merchant_order_no, o.kind, o.state, nullif(o.order_no, '') AS order_no,
       o.submitted_at, o.amount, o.amount_minor, o.currency, o.card_id AS journal_card_id,
       f.card_id, f.transaction_id AS fee_transaction_id, f.status AS fee_status,
       f.amount AS fee, f.amount_minor AS fee_minor, f.created_at AS outcome_at,
       f.first_seen_at AS outcome_seen_at,
       CASE
         WHEN o.kind = 'TOPUP' THEN 'topup'
         WHEN o.state = 'REJECTED' THEN 'rejected'
         WHEN nullif(o.order_no, '') IS NULL AND o.state = 'SUBMITTED' THEN 'not_accepted'
         WHEN nullif(o.order_no, '') IS NULL THEN 'unlinkable'
         WHEN f.transaction_id IS NULL THEN 'awaiting_outcome'
         WHEN f.status IN ('COMPLETED', 'SETTLED') THEN 'completed'
         WHEN f.status = 'DECLINED' THEN 'failed'
         ELSE 'fee_pending'
       END AS outcome
FROM orders o
LEFT JOIN fee_records f
  ON f.merchant_id = o.merchant_id AND f.trade_no = o.order_no AND o.order_no <> ''
 AND o.kind <> 'TOPUP' AND o.state <> 'REJECTED';

CREATE VIEW card_ledger AS
-- One row per entry of a mirrored card's ledger (reference-model.md sections 3-4): each
-- completed ISSUE, DEPOSIT or WITHDRAW order linked to the card (source 'order', amount from
-- the journal, dated by its FEE record) and each of the card's transactions (source
-- 'transaction', DECLINED ones included with effect 0).
--   effect_minor: what the entry does to the card balance, in minor units: ISSUE and DEPOSIT
--     +amount, WITHDRAW -amount; PURCHASE -(amount + fee) and FEE -amount from PENDING on;
--     REFUND and REVERSAL +amount - fee, VERIFICATION -fee, once COMPLETED or SETTLED; DECLINED
--     0. NULL when an amount it needs is too precise for its currency (PRECISION_VIOLATION).
--   visible_at_read: 1 when the card's balance read (cards.observed_at) could reflect the entry
--     (created, or first mirrored, at or before it), 0 when it came later: the next sync reads
--     the balance again and counts it then.
-- Sum effect_minor WHERE visible_at_read = 1 for a card to see how card_balance_check got its
SELECT l.merchant_id, l.card_id, l.source, l.entry_type, l.status, l.merchant_order_no,
       l.transaction_id, l.trade_no, l.created_at, l.currency, l.effect_minor,
       CASE
         WHEN l.effect_minor IS NULL OR x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(l.effect_minor AS TEXT)
         ELSE (CASE WHEN l.effect_minor < 0 THEN '-' ELSE '' END) || (abs(l.effect_minor) / x.unit)
              || '.' || substr('000' || (abs(l.effect_minor) % x.unit), -x.exponent)
       END AS effect,
       l.visible_at_read
FROM (
  SELECT c.merchant_id, c.card_id, 'order' AS source, o.kind AS entry_type,
         o.fee_status AS status, o.merchant_order_no, o.fee_transaction_id AS transaction_id,
         o.order_no AS trade_no, o.outcome_at AS created_at, o.currency,
         CASE o.kind WHEN 'WITHDRAW' THEN -o.amount_minor ELSE o.amount_minor END AS effect_minor,
         (o.outcome_at <= c.observed_at OR o.outcome_seen_at <= c.observed_at) AS visible_at_read
  FROM order_outcomes o
  JOIN cards c ON c.card_id = o.card_id AND c.merchant_id = o.merchant_id
  WHERE o.outcome = 'completed' AND o.kind IN ('ISSUE', 'DEPOSIT', 'WITHDRAW')
  UNION ALL
  SELECT t.merchant_id, t.card_id, 'transaction', t.type, t.status, NULL, t.transaction_id,
         t.trade_no, t.created_at, t.currency,
         CASE
           WHEN t.status = 'DECLINED' THEN 0
           WHEN t.status NOT IN ('PENDING', 'COMPLETED', 'SETTLED') THEN NULL
           WHEN t.type = 'PURCHASE' THEN -(t.amount_minor + t.fee_minor)
           WHEN t.type = 'FEE' THEN -t.amount_minor
           WHEN t.type IN ('REFUND', 'REVERSAL') AND t.status = 'PENDING' THEN 0
           WHEN t.type IN ('REFUND', 'REVERSAL') THEN t.amount_minor - t.fee_minor
           WHEN t.type = 'VERIFICATION' AND t.status = 'PENDING' THEN 0
           WHEN t.type = 'VERIFICATION' THEN -t.fee_minor
         END,
         (t.created_at <= c.observed_at OR t.first_seen_at <= c.observed_at)
  FROM transactions t
  JOIN cards c ON c.card_id = t.card_id AND c.merchant_id = t.merchant_id
) l
LEFT JOIN currency_exponents x ON x.currency = l.currency;

CREATE VIEW card_balance_check AS
-- One row per mirrored card: its reported balance beside the balance its ledger implies
-- (reference-model.md section 4, the rule of CARD_BALANCE_MISMATCH in docs/findings.md).
--   balance / balance_minor: as last read (balance_read_at = cards.observed_at).
--   issue_linked: 1 when a journal ISSUE order is linked to the card through its FEE record;
--     0 means the journal does not know the card (UNJOURNALED_CARD): expected is NULL.
--   orders_counted / orders_minor: the completed ISSUE, DEPOSIT, WITHDRAW orders linked to the
--     card and their net amount (ISSUE, DEPOSIT +; WITHDRAW -), from card_ledger.
--   transactions_counted / transactions_minor: the card's transactions and their net effect.
--   transactions_after_read: transactions created after the balance was read (not counted).
--   too_precise: ledger entries whose amount is too precise for its currency (not counted).
--   expected_minor / expected: 0 for a CANCELLED card, else orders_minor + transactions_minor;
--     NULL when issue_linked = 0 or too_precise > 0 (the ledger is then not known).
--   difference_minor / difference: reported balance - expected (the `delta` of the finding).
--   check_result: 'match', 'mismatch', or 'unchecked' with the reason in unchecked_reason.
-- The reconciliation applies the same rule, and also leaves out cards issued before the
-- synced range and balances read after the last fully synced transaction (see its coverage):
-- compare with open_findings WHERE check_code = 'CARD_BALANCE_MISMATCH'.
-- Drill into one card with card_ledger.
WITH sums AS (
  SELECT card_id,
         sum(source = 'order' AND visible_at_read) AS orders_counted,
         sum(CASE WHEN source = 'order' AND visible_at_read THEN effect_minor END) AS orders_minor,
         sum(source = 'transaction' AND visible_at_read) AS transactions_counted,
         sum(CASE WHEN source = 'transaction' AND visible_at_read THEN effect_minor END)
           AS transactions_minor,
         sum(source = 'transaction' AND NOT visible_at_read) AS transactions_after_read,
         sum(visible_at_read AND effect_minor IS NULL) AS too_precise
  FROM card_ledger
  GROUP BY card_id
),
issued AS (
  SELECT DISTINCT merchant_id, card_id FROM order_outcomes
  WHERE kind = 'ISSUE' AND card_id IS NOT NULL
),
checked AS (
  SELECT c.merchant_id, c.card_id, c.card_offering_id, c.status, c.currency,
         c.observed_at AS balance_read_at, c.balance, c.balance_minor,
         i.card_id IS NOT NULL AS issue_linked,
         coalesce(s.orders_counted, 0) AS orders_counted,
         coalesce(s.orders_minor, 0) AS orders_minor,
         coalesce(s.transactions_counted, 0) AS transactions_counted,
         coalesce(s.transactions_minor, 0) AS transactions_minor,
         coalesce(s.transactions_after_read, 0) AS transactions_after_read,
         coalesce(s.too_precise, 0) AS too_precise
  FROM cards c
  LEFT JOIN issued i ON i.card_id = c.card_id AND i.merchant_id = c.merchant_id
  LEFT JOIN sums s ON s.card_id = c.card_id
),
expected AS (
  SELECT k.*,
         CASE
           WHEN NOT k.issue_linked THEN NULL
           WHEN k.status = 'CANCELLED' THEN 0
           WHEN k.too_precise > 0 THEN NULL
           ELSE k.orders_minor + k.transactions_minor
         END AS expected_minor
  FROM checked k
),
compared AS (
  SELECT e.*, e.balance_minor - e.expected_minor AS difference_minor FROM expected e
)
SELECT m.merchant_id, m.card_id, m.card_offering_id, m.status, m.currency, m.balance_read_at,
       m.balance, m.balance_minor, m.issue_linked, m.orders_counted, m.orders_minor,
       m.transactions_counted, m.transactions_minor, m.transactions_after_read, m.too_precise,
       m.expected_minor,
       CASE
         WHEN m.expected_minor IS NULL OR x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(m.expected_minor AS TEXT)
         ELSE (CASE WHEN m.expected_minor < 0 THEN '-' ELSE '' END)
              || (abs(m.expected_minor) / x.unit) || '.'
              || substr('000' || (abs(m.expected_minor) % x.unit), -x.exponent)
       END AS expected,
       m.difference_minor,
       CASE
         WHEN m.difference_minor IS NULL OR x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(m.difference_minor AS TEXT)
         ELSE (CASE WHEN m.difference_minor < 0 THEN '-' ELSE '' END)
              || (abs(m.difference_minor) / x.unit) || '.'
              || substr('000' || (abs(m.difference_minor) % x.unit), -x.exponent)
       END AS difference,
       CASE
         WHEN m.difference_minor IS NULL THEN 'unchecked'
         WHEN m.difference_minor = 0 THEN 'match'
         ELSE 'mismatch'
       END AS check_result,
       CASE
         WHEN NOT m.issue_linked
           THEN 'no linked ISSUE order in the journal: expected balance unknown (UNJOURNALED_CARD)'
         WHEN m.balance_minor IS NULL
           THEN 'balance too precise for its currency, or currency unknown (PRECISION_VIOLATION)'
         WHEN m.expected_minor IS NULL
           THEN m.too_precise || ' ledger amount(s) too precise for the currency (PRECISION_VIOLATION)'
       END AS unchecked_reason
FROM compared m
LEFT JOIN currency_exponents x ON x.currency = m.currency;

CREATE VIEW fees_by_offering_day AS
-- One row per merchant, offering, currency and UTC day: the fees charged to cards, i.e. FEE
-- transactions COMPLETED or SETTLED (PENDING and DECLINED ones are left out), dated by their
-- created_at. The offering is the card's (cards.card_offering_id); a FEE of a card the mirror
-- does not hold (ORPHAN_TRANSACTION) has offering_id NULL.
--   fee_count: FEE records, zero-amount ones included (WITHDRAW and CANCEL outcomes charge 0).
--   fees_minor / fees: their sum in minor units and as decimal text, too_precise ones left out.
--   too_precise: fees whose amount is too precise for the currency (not in the sum).
-- Issuance, deposit and service fees all count here; order_outcomes tells which order a fee
-- belongs to (fee_transaction_id) when the split matters.
WITH fees AS (
  SELECT t.merchant_id, c.card_offering_id AS offering_id, t.currency,
         substr(t.created_at, 1, 10) AS day, count(*) AS fee_count,
         coalesce(sum(t.amount_minor), 0) AS fees_minor,
         sum(t.amount_minor IS NULL) AS too_precise
  FROM transactions t
  LEFT JOIN cards c ON c.card_id = t.card_id AND c.merchant_id = t.merchant_id
  WHERE t.type = 'FEE' AND t.status IN ('COMPLETED', 'SETTLED')
  GROUP BY t.merchant_id, c.card_offering_id, t.currency, substr(t.created_at, 1, 10)
)
SELECT f.merchant_id, f.offering_id, o.name AS offering_name, f.currency, f.day, f.fee_count,
       f.fees_minor,
       CASE
         WHEN x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(f.fees_minor AS TEXT)
         ELSE (CASE WHEN f.fees_minor < 0 THEN '-' ELSE '' END) || (abs(f.fees_minor) / x.unit)
              || '.' || substr('000' || (abs(f.fees_minor) % x.unit), -x.exponent)
       END AS fees,
       f.too_precise
FROM fees f
LEFT JOIN offerings o ON o.id = f.offering_id
LEFT JOIN currency_exponents x ON x.currency = f.currency;

CREATE VIEW transactions_daily AS
-- One row per merchant, UTC day (of created_at), type, status and currency: how many
-- transactions the mirror holds and their amounts and fees, in minor units and as decimal text.
-- The status is the current one: a PURCHASE created on a day shows as SETTLED once it settled.
--   amount_minor / fee_minor: sums, too_precise transactions left out (0 when none count).
--   too_precise: transactions whose amount or fee is too precise for the currency.
-- A late-posted transaction lands on the day it was created, so the newest days can still grow.
WITH daily AS (
  SELECT t.merchant_id, substr(t.created_at, 1, 10) AS day, t.type, t.status, t.currency,
         count(*) AS transaction_count,
         coalesce(sum(CASE WHEN t.fee_minor IS NOT NULL THEN t.amount_minor END), 0) AS amount_minor,
         coalesce(sum(CASE WHEN t.amount_minor IS NOT NULL THEN t.fee_minor END), 0) AS fee_minor,
         sum(t.amount_minor IS NULL OR t.fee_minor IS NULL) AS too_precise
  FROM transactions t
  GROUP BY t.merchant_id, substr(t.created_at, 1, 10), t.type, t.status, t.currency
)
SELECT d.merchant_id, d.day, d.type, d.status, d.currency, d.transaction_count,
       d.amount_minor,
       CASE
         WHEN x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(d.amount_minor AS TEXT)
         ELSE (CASE WHEN d.amount_minor < 0 THEN '-' ELSE '' END) || (abs(d.amount_minor) / x.unit)
              || '.' || substr('000' || (abs(d.amount_minor) % x.unit), -x.exponent)
       END AS amount,
       d.fee_minor,
       CASE
         WHEN x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(d.fee_minor AS TEXT)
         ELSE (CASE WHEN d.fee_minor < 0 THEN '-' ELSE '' END) || (abs(d.fee_minor) / x.unit)
              || '.' || substr('000' || (abs(d.fee_minor) % x.unit), -x.exponent)
       END AS fee,
       d.too_precise
FROM daily d
LEFT JOIN currency_exponents x ON x.currency = d.currency;

CREATE VIEW latest_merchant_balance AS
-- One row per merchant: its newest balance snapshot (GET /merchants/balance, one per sync) and
-- the change since the one before.
--   previous_*: the snapshot before it (NULL when there is only one).
--   change_minor / change: balance - previous balance (NULL when either is unknown).
--   snapshots: how many snapshots the mirror holds for the merchant.
-- merchant_balances holds every snapshot for a longer history.
WITH ranked AS (
  SELECT b.*,
         row_number() OVER (
           PARTITION BY b.merchant_id ORDER BY b.observed_at DESC, b.snapshot_id DESC
         ) AS recency,
         count(*) OVER (PARTITION BY b.merchant_id) AS snapshots
  FROM merchant_balances b
),
paired AS (
  SELECT l.merchant_id, l.currency, l.balance, l.balance_minor, l.observed_at, l.run_id,
         l.snapshot_id, p.balance AS previous_balance, p.balance_minor AS previous_balance_minor,
         p.observed_at AS previous_observed_at, l.balance_minor - p.balance_minor AS change_minor,
         l.snapshots
  FROM ranked l
  LEFT JOIN ranked p ON p.merchant_id = l.merchant_id AND p.recency = 2
  WHERE l.recency = 1
)
SELECT b.merchant_id, b.currency, b.balance, b.balance_minor, b.observed_at, b.run_id,
       b.snapshot_id, b.previous_balance, b.previous_balance_minor, b.previous_observed_at,
       b.change_minor,
       CASE
         WHEN b.change_minor IS NULL OR x.exponent IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(b.change_minor AS TEXT)
         ELSE (CASE WHEN b.change_minor < 0 THEN '-' ELSE '' END) || (abs(b.change_minor) / x.unit)
              || '.' || substr('000' || (abs(b.change_minor) % x.unit), -x.exponent)
       END AS change,
       b.snapshots
FROM paired b
LEFT JOIN currency_exponents x ON x.currency = b.currency;

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
       ) AS in_latest_reconciliation
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

CREATE VIEW sync_freshness AS
-- One row per merchant: how fresh its part of the mirror is. Look here first in the morning:
-- the checks are only as good as the last sync.
--   cards / cards_read_at: cards mirrored and when the newest card list was read.
--   transactions_synced_to: the end of the newest fully synced time range of transactions;
--     synced_ranges > 1 means a gap remains (a run stopped part-way; the next run fills it).
--   balance_read_at: the newest merchant balance snapshot.
--   quarantined: upstream records that failed validation and have no valid version yet.
--   last_run_*: the newest run that synced this merchant (sync_runs, via sync_windows);
--     outcome 'done', or 'incomplete' / 'interrupted' / 'failed' / 'crashed' / 'running'.
--   last_reconciled_at: the newest reconciliation of the mirror (all merchants).
SELECT m.merchant_id, m.source, m.currency,
       (SELECT count(*) FROM cards c WHERE c.merchant_id = m.merchant_id) AS cards,
       (SELECT max(c.observed_at) FROM cards c WHERE c.merchant_id = m.merchant_id)
         AS cards_read_at,
       (SELECT max(p.end_at) FROM sync_progress p WHERE p.merchant_id = m.merchant_id)
         AS transactions_synced_to,
       (SELECT count(*) FROM sync_progress p WHERE p.merchant_id = m.merchant_id)
         AS synced_ranges,
       (SELECT max(b.observed_at) FROM merchant_balances b WHERE b.merchant_id = m.merchant_id)
         AS balance_read_at,
       (SELECT count(*) FROM quarantine q
        WHERE q.merchant_id = m.merchant_id AND q.resolved_at IS NULL) AS quarantined,
       r.run_id AS last_run_id, r.command AS last_run_command, r.outcome AS last_run_outcome,
       r.started_at AS last_run_started_at, r.finished_at AS last_run_finished_at,
       (SELECT max(rr.reconciled_at) FROM recon_runs rr) AS last_reconciled_at
FROM merchants m
LEFT JOIN sync_runs r ON r.run_id = (
  SELECT w.run_id FROM sync_windows w
  JOIN sync_runs s ON s.run_id = w.run_id
  WHERE w.merchant_id = m.merchant_id
  ORDER BY s.started_at DESC, s.run_id DESC
  LIMIT 1
);
