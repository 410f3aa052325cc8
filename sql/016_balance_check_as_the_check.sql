-- 016: card_balance_check leaves unchecked, as CARD_BALANCE_MISMATCH does, a card whose ledger
-- holds another currency or a transaction in quarantine.
--
-- One currency per merchant account (reference-model.md section 3), but the upstream may show a
-- card a transaction in another currency (CURRENCY_MISMATCH), and a journal may hold an order
-- in another currency than its card's. card_balance_check summed their minor units with the
-- card's own: 1.00 EUR on a USD card counted as 1.00 USD, 500 JPY deposited on it as 5.00 USD,
-- so analysts saw a 'mismatch' (or a 'match') of a sum of two currencies, where
-- CARD_BALANCE_MISMATCH leaves the card out with a reason. Such a card is now 'unchecked' with
-- the check's reason, as the check has it: a completed order counted at the read in another
-- currency, or any transaction of the card in another one; orders_minor or transactions_minor,
-- whichever would mix currencies, is NULL. card_ledger keeps each entry in its own currency.
--
-- A transaction the upstream sent malformed is set aside in `quarantine` (resolved_at NULL until
-- a valid version arrives), so it is missing from `transactions` and from the card's ledger,
-- while the balance the upstream reports includes it. CARD_BALANCE_MISMATCH leaves such a card
-- out (src/recon/quarantined-sql.ts); card_balance_check held the incomplete ledger against the
-- balance and showed analysts a 'mismatch' of the quarantined record's effect (-5.00 for a 5.00
-- purchase). Such a card (the `cardId` of the raw record) is now 'unchecked' with the check's
-- reason; a CANCELLED one is still expected at 0, as the check has it.
--
-- Columns and their order are unchanged.
DROP VIEW card_balance_check;

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
--     an order_no, when a counted order is journaled or a transaction is in another currency
--     than the card's (minor units of two currencies do not add up: orders_minor, or
--     transactions_minor, is then NULL too), when a transaction of the card is in quarantine
--     (a malformed upstream record the mirror lacks), or when too_precise > 0 (the ledger is
--     then not known).
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
  SELECT l.card_id,
         sum(l.source = 'order' AND l.visible_at_read AND l.currency <> c.currency)
           AS foreign_orders,
         sum(l.source = 'transaction' AND l.visible_at_read AND l.currency <> c.currency)
           AS foreign_counted,
         sum(l.source = 'transaction' AND l.currency <> c.currency) AS foreign_transactions,
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
  FROM card_ledger l
  JOIN cards c ON c.card_id = l.card_id
  GROUP BY l.card_id
),
-- Each sum as high * 2^32 + low with 0 <= low < 2^32: an integer when high fits 32 bits (not
-- -2^31, which could give -2^63, whose abs() the text columns could not take).
carried AS (
  SELECT card_id, orders_counted, transactions_counted, transactions_after_read, too_precise,
         foreign_orders, foreign_counted, foreign_transactions,
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
quarantined AS (
  SELECT DISTINCT merchant_id, json_extract(raw_json, '$.cardId') AS card_id FROM quarantine
  WHERE resource = 'transactions' AND resolved_at IS NULL AND json_valid(raw_json)
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
         CASE WHEN coalesce(s.foreign_orders, 0) = 0
               AND coalesce(s.orders_high, 0) BETWEEN -2147483647 AND 2147483647
              THEN coalesce(s.orders_high * 4294967296 + s.orders_low, 0) END AS orders_minor,
         coalesce(s.transactions_counted, 0) AS transactions_counted,
         CASE WHEN coalesce(s.foreign_counted, 0) = 0
               AND coalesce(s.transactions_high, 0) BETWEEN -2147483647 AND 2147483647
              THEN coalesce(s.transactions_high * 4294967296 + s.transactions_low, 0) END
           AS transactions_minor,
         coalesce(s.ledger_high, 0) AS ledger_high, coalesce(s.ledger_low, 0) AS ledger_low,
         coalesce(s.transactions_after_read, 0) AS transactions_after_read,
         coalesce(s.too_precise, 0) AS too_precise,
         coalesce(s.foreign_orders, 0) > 0 AS foreign_orders,
         coalesce(s.foreign_transactions, 0) > 0 AS foreign_transactions,
         q.card_id IS NOT NULL AS quarantined
  FROM cards c
  LEFT JOIN issued i ON i.card_id = c.card_id AND i.merchant_id = c.merchant_id
  LEFT JOIN unknown_orders u ON u.card_id = c.card_id AND u.merchant_id = c.merchant_id
  LEFT JOIN carried s ON s.card_id = c.card_id
  LEFT JOIN quarantined q ON q.card_id = c.card_id AND q.merchant_id = c.merchant_id
),
expected AS (
  SELECT k.*,
         CASE
           WHEN NOT k.issue_linked THEN NULL
           WHEN k.status = 'CANCELLED' THEN 0
           WHEN k.orders_unknown THEN NULL
           WHEN k.foreign_orders OR k.foreign_transactions THEN NULL
           WHEN k.quarantined THEN NULL
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
         WHEN m.expected_minor IS NULL AND m.foreign_orders
           THEN 'a completed order of the card is journaled in another currency than the card''s: its amount cannot be added'
         WHEN m.expected_minor IS NULL AND m.foreign_transactions
           THEN 'a transaction of the card is in another currency than the card''s (CURRENCY_MISMATCH): its amount cannot be added'
         WHEN m.expected_minor IS NULL AND m.quarantined
           THEN 'a transaction of it is in quarantine (malformed upstream record): the mirror lacks it'
         WHEN m.expected_minor IS NULL AND m.too_precise > 0
           THEN m.too_precise || ' ledger amount(s) too precise for the currency (PRECISION_VIOLATION)'
         WHEN m.difference_minor IS NULL
           THEN 'the ledger passes SQLite''s integer range (2^63 minor units): sum card_ledger''s effect_minor in two parts (docs/analysts.md)'
       END AS unchecked_reason
FROM compared m
LEFT JOIN currency_exponents x ON x.currency = m.currency;
