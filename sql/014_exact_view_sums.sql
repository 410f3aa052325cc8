-- 014: the analysts' views sum amounts in two parts that cannot overflow.
--
-- Each amount is under 2^53 minor units, but about a thousand of them (1,025 refunds of
-- 90,071,992,547,409.91 on one trade, a bug or an attack upstream) pass 2^63 - 1, where
-- SQLite's sum() stops the whole statement with "integer overflow": card_balance_check then
-- failed for every card, whatever the WHERE, and transactions_daily and fees_by_offering_day for
-- any query reading the group. Each sum is now taken as the sum of `x >> 32` and of
-- `x & 0xffffffff` (neither can overflow), joined into an integer where it lies within
-- ±(2^63 - 2^32), and NULL beyond: such a card is 'unchecked' with its reason, such a group has
-- no sum. Columns and their order are unchanged (docs/analysts.md, "Money").
DROP VIEW card_balance_check;
DROP VIEW fees_by_offering_day;
DROP VIEW transactions_daily;

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
--     NULL when issue_linked = 0, when a DEPOSIT or WITHDRAW of the card is journaled without
--     an order_no, or when too_precise > 0 (the ledger is then not known).
--   orders_minor, transactions_minor, expected_minor, difference_minor (and their text) are
--     NULL where they pass SQLite's integer range (2^63 minor units): the sums are taken in two
--     parts that cannot overflow, so such a card is 'unchecked' rather than failing the query.
--   difference_minor / difference: reported balance - expected (the `delta` of the finding).
--   check_result: 'match', 'mismatch', or 'unchecked' with the reason in unchecked_reason.
-- The reconciliation applies the same rule, and also leaves out cards issued before the
-- synced range and balances read after the last fully synced transaction (see its coverage):
-- compare with open_findings WHERE check_code = 'CARD_BALANCE_MISMATCH'.
-- Drill into one card with card_ledger.
WITH sums AS (
  SELECT card_id,
         sum(source = 'order' AND visible_at_read) AS orders_counted,
         sum(CASE WHEN source = 'order' AND visible_at_read THEN effect_minor END >> 32)
           AS orders_high,
         sum(CASE WHEN source = 'order' AND visible_at_read THEN effect_minor END & 4294967295)
           AS orders_low,
         sum(source = 'transaction' AND visible_at_read) AS transactions_counted,
         sum(CASE WHEN source = 'transaction' AND visible_at_read THEN effect_minor END >> 32)
           AS transactions_high,
         sum(CASE WHEN source = 'transaction' AND visible_at_read THEN effect_minor END & 4294967295)
           AS transactions_low,
         sum(source = 'transaction' AND NOT visible_at_read) AS transactions_after_read,
         sum(visible_at_read AND effect_minor IS NULL) AS too_precise
  FROM card_ledger
  GROUP BY card_id
),
-- Each sum as high * 2^32 + low with 0 <= low < 2^32: an integer when high fits 32 bits (not
-- -2^31, which could give -2^63, whose abs() the text columns could not take).
carried AS (
  SELECT card_id, orders_counted, transactions_counted, transactions_after_read, too_precise,
         coalesce(orders_high, 0) + (coalesce(orders_low, 0) >> 32) AS orders_high,
         coalesce(orders_low, 0) & 4294967295 AS orders_low,
         coalesce(transactions_high, 0) + (coalesce(transactions_low, 0) >> 32)
           AS transactions_high,
         coalesce(transactions_low, 0) & 4294967295 AS transactions_low,
         coalesce(orders_high, 0) + coalesce(transactions_high, 0)
           + ((coalesce(orders_low, 0) + coalesce(transactions_low, 0)) >> 32) AS ledger_high,
         (coalesce(orders_low, 0) + coalesce(transactions_low, 0)) & 4294967295 AS ledger_low
  FROM sums
),
issued AS (
  SELECT DISTINCT merchant_id, card_id FROM order_outcomes
  WHERE kind = 'ISSUE' AND card_id IS NOT NULL
),
unknown_orders AS (
  SELECT DISTINCT merchant_id, journal_card_id AS card_id FROM order_outcomes
  WHERE kind IN ('DEPOSIT', 'WITHDRAW') AND outcome IN ('not_accepted', 'unlinkable')
    AND journal_card_id IS NOT NULL
),
checked AS (
  SELECT c.merchant_id, c.card_id, c.card_offering_id, c.status, c.currency,
         c.observed_at AS balance_read_at, c.balance, c.balance_minor,
         i.card_id IS NOT NULL AS issue_linked, u.card_id IS NOT NULL AS orders_unknown,
         coalesce(s.orders_counted, 0) AS orders_counted,
         CASE WHEN coalesce(s.orders_high, 0) BETWEEN -2147483647 AND 2147483647
              THEN coalesce(s.orders_high * 4294967296 + s.orders_low, 0) END AS orders_minor,
         coalesce(s.transactions_counted, 0) AS transactions_counted,
         CASE WHEN coalesce(s.transactions_high, 0) BETWEEN -2147483647 AND 2147483647
              THEN coalesce(s.transactions_high * 4294967296 + s.transactions_low, 0) END
           AS transactions_minor,
         coalesce(s.ledger_high, 0) AS ledger_high, coalesce(s.ledger_low, 0) AS ledger_low,
         coalesce(s.transactions_after_read, 0) AS transactions_after_read,
         coalesce(s.too_precise, 0) AS too_precise
  FROM cards c
  LEFT JOIN issued i ON i.card_id = c.card_id AND i.merchant_id = c.merchant_id
  LEFT JOIN unknown_orders u ON u.card_id = c.card_id AND u.merchant_id = c.merchant_id
  LEFT JOIN carried s ON s.card_id = c.card_id
),
expected AS (
  SELECT k.*,
         CASE
           WHEN NOT k.issue_linked THEN NULL
           WHEN k.status = 'CANCELLED' THEN 0
           WHEN k.orders_unknown THEN NULL
           WHEN k.too_precise > 0 THEN NULL
           WHEN k.ledger_high NOT BETWEEN -2147483647 AND 2147483647 THEN NULL
           ELSE k.ledger_high * 4294967296 + k.ledger_low
         END AS expected_minor
  FROM checked k
),
compared AS (
  SELECT e.*,
         -- A balance is under 2^53: only one of the other sign and near the range's ends
         -- could take the difference past it.
         CASE WHEN (e.balance_minor < 0) = (e.expected_minor < 0)
                OR e.expected_minor BETWEEN -9214364837600034816 AND 9214364837600034816
              THEN e.balance_minor - e.expected_minor END AS difference_minor
  FROM expected e
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
         WHEN m.expected_minor IS NULL AND m.orders_unknown
           THEN 'a DEPOSIT or WITHDRAW of the card has no order_no: its outcome cannot be linked'
         WHEN m.expected_minor IS NULL AND m.too_precise > 0
           THEN m.too_precise || ' ledger amount(s) too precise for the currency (PRECISION_VIOLATION)'
         WHEN m.difference_minor IS NULL
           THEN 'the ledger passes SQLite''s integer range (2^63 minor units): sum card_ledger''s effect_minor in two parts (docs/analysts.md)'
       END AS unchecked_reason
FROM compared m
LEFT JOIN currency_exponents x ON x.currency = m.currency;

CREATE VIEW fees_by_offering_day AS
-- One row per merchant, offering, currency and UTC day: the fees charged to cards, i.e. FEE
-- transactions COMPLETED or SETTLED (PENDING and DECLINED ones are left out), dated by their
-- created_at. The offering is the card's (cards.card_offering_id); a FEE of a card the mirror
-- does not hold (ORPHAN_TRANSACTION) has offering_id NULL.
--   fee_count: FEE records, zero-amount ones included (WITHDRAW and CANCEL outcomes charge 0).
--   fees_minor / fees: their sum in minor units and as decimal text, too_precise ones left out;
--     NULL where the sum passes SQLite's integer range (2^63 minor units) rather than failing.
--   too_precise: fees whose amount is too precise for the currency (not in the sum).
-- Issuance, deposit and service fees all count here; order_outcomes tells which order a fee
-- belongs to (fee_transaction_id) when the split matters.
WITH fees AS (
  SELECT t.merchant_id, c.card_offering_id AS offering_id, t.currency,
         substr(t.created_at, 1, 10) AS day, count(*) AS fee_count,
         coalesce(sum(t.amount_minor >> 32), 0) + (coalesce(sum(t.amount_minor & 4294967295), 0) >> 32)
           AS fees_high,
         coalesce(sum(t.amount_minor & 4294967295), 0) & 4294967295 AS fees_low,
         sum(t.amount_minor IS NULL) AS too_precise
  FROM transactions t
  LEFT JOIN cards c ON c.card_id = t.card_id AND c.merchant_id = t.merchant_id
  WHERE t.type = 'FEE' AND t.status IN ('COMPLETED', 'SETTLED')
  GROUP BY t.merchant_id, c.card_offering_id, t.currency, substr(t.created_at, 1, 10)
),
exact AS (
  SELECT fees.*,
         CASE WHEN fees_high BETWEEN -2147483647 AND 2147483647
              THEN fees_high * 4294967296 + fees_low END AS fees_minor
  FROM fees
)
SELECT f.merchant_id, f.offering_id, o.name AS offering_name, f.currency, f.day, f.fee_count,
       f.fees_minor,
       CASE
         WHEN x.exponent IS NULL OR f.fees_minor IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(f.fees_minor AS TEXT)
         ELSE (CASE WHEN f.fees_minor < 0 THEN '-' ELSE '' END) || (abs(f.fees_minor) / x.unit)
              || '.' || substr('000' || (abs(f.fees_minor) % x.unit), -x.exponent)
       END AS fees,
       f.too_precise
FROM exact f
LEFT JOIN offerings o ON o.id = f.offering_id
LEFT JOIN currency_exponents x ON x.currency = f.currency;

CREATE VIEW transactions_daily AS
-- One row per merchant, UTC day (of created_at), type, status and currency: how many
-- transactions the mirror holds and their amounts and fees, in minor units and as decimal text.
-- The status is the current one: a PURCHASE created on a day shows as SETTLED once it settled.
--   amount_minor / fee_minor: sums, too_precise transactions left out (0 when none count);
--     NULL where a sum passes SQLite's integer range (2^63 minor units) rather than failing.
--   too_precise: transactions whose amount or fee is too precise for the currency.
-- A late-posted transaction lands on the day it was created, so the newest days can still grow.
WITH daily AS (
  SELECT t.merchant_id, substr(t.created_at, 1, 10) AS day, t.type, t.status, t.currency,
         count(*) AS transaction_count,
         coalesce(sum(CASE WHEN t.fee_minor IS NOT NULL THEN t.amount_minor END >> 32), 0)
           AS amount_high,
         coalesce(sum(CASE WHEN t.fee_minor IS NOT NULL THEN t.amount_minor END & 4294967295), 0)
           AS amount_low,
         coalesce(sum(CASE WHEN t.amount_minor IS NOT NULL THEN t.fee_minor END >> 32), 0)
           AS fee_high,
         coalesce(sum(CASE WHEN t.amount_minor IS NOT NULL THEN t.fee_minor END & 4294967295), 0)
           AS fee_low,
         sum(t.amount_minor IS NULL OR t.fee_minor IS NULL) AS too_precise
  FROM transactions t
  GROUP BY t.merchant_id, substr(t.created_at, 1, 10), t.type, t.status, t.currency
),
exact AS (
  SELECT merchant_id, day, type, status, currency, transaction_count, too_precise,
         CASE WHEN amount_high + (amount_low >> 32) BETWEEN -2147483647 AND 2147483647
              THEN (amount_high + (amount_low >> 32)) * 4294967296 + (amount_low & 4294967295)
         END AS amount_minor,
         CASE WHEN fee_high + (fee_low >> 32) BETWEEN -2147483647 AND 2147483647
              THEN (fee_high + (fee_low >> 32)) * 4294967296 + (fee_low & 4294967295)
         END AS fee_minor
  FROM daily
)
SELECT d.merchant_id, d.day, d.type, d.status, d.currency, d.transaction_count,
       d.amount_minor,
       CASE
         WHEN x.exponent IS NULL OR d.amount_minor IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(d.amount_minor AS TEXT)
         ELSE (CASE WHEN d.amount_minor < 0 THEN '-' ELSE '' END) || (abs(d.amount_minor) / x.unit)
              || '.' || substr('000' || (abs(d.amount_minor) % x.unit), -x.exponent)
       END AS amount,
       d.fee_minor,
       CASE
         WHEN x.exponent IS NULL OR d.fee_minor IS NULL THEN NULL
         WHEN x.exponent = 0 THEN CAST(d.fee_minor AS TEXT)
         ELSE (CASE WHEN d.fee_minor < 0 THEN '-' ELSE '' END) || (abs(d.fee_minor) / x.unit)
              || '.' || substr('000' || (abs(d.fee_minor) % x.unit), -x.exponent)
       END AS fee,
       d.too_precise
FROM exact d
LEFT JOIN currency_exponents x ON x.currency = d.currency;
