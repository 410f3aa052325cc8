-- 010: the balance views of 006 for every mirror, also one migrated by the first 006.
--
-- 006 was first shipped as `fee_pending_orders` (cardsync a1633a1): it recreated card_ledger
-- alone. The 006 that replaced it (`balance_view_orders`) also recreates card_balance_check, so
-- that a card with a DEPOSIT or WITHDRAW journaled without an order_no is unchecked, as
-- CARD_BALANCE_MISMATCH leaves it out. A mirror the first 006 had migrated was at version 6
-- already and never got it: its card_balance_check, still that of 004, showed such a card as a
-- mismatch. Both views are recreated here exactly as 006 defines them (same columns, same
-- order); for a mirror that ran today's 006 nothing changes.
DROP VIEW card_balance_check;
DROP VIEW card_ledger;

CREATE VIEW card_ledger AS
-- One row per entry of a mirrored card's ledger (reference-model.md sections 3-4): each
-- ISSUE, DEPOSIT or WITHDRAW order linked to the card that did not fail (outcome `completed`,
-- or `fee_pending`, whose PENDING FEE record the ledger already charges; source 'order',
-- amount from the journal, dated by its FEE record) and each of the card's transactions
-- (source 'transaction', DECLINED ones included with effect 0).
--   effect_minor: what the entry does to the card balance, in minor units: ISSUE and DEPOSIT
--     +amount, WITHDRAW -amount; PURCHASE -(amount + fee) and FEE -amount from PENDING on;
--     REFUND and REVERSAL +amount - fee, VERIFICATION -fee, once COMPLETED or SETTLED; DECLINED
--     0. NULL when an amount it needs is too precise for its currency (PRECISION_VIOLATION).
--   visible_at_read: 1 when the card's balance read (cards.observed_at) could reflect the entry
--     (created, or first mirrored, at or before it), 0 when it came later: the next sync reads
--     the balance again and counts it then.
-- Sum effect_minor WHERE visible_at_read = 1 for a card to see how card_balance_check got its
-- expected balance.
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
  WHERE o.outcome IN ('completed', 'fee_pending') AND o.kind IN ('ISSUE', 'DEPOSIT', 'WITHDRAW')
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
--     NULL when issue_linked = 0, when a DEPOSIT or WITHDRAW of the card is journaled without
--     an order_no, or when too_precise > 0 (the ledger is then not known).
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
         coalesce(s.orders_minor, 0) AS orders_minor,
         coalesce(s.transactions_counted, 0) AS transactions_counted,
         coalesce(s.transactions_minor, 0) AS transactions_minor,
         coalesce(s.transactions_after_read, 0) AS transactions_after_read,
         coalesce(s.too_precise, 0) AS too_precise
  FROM cards c
  LEFT JOIN issued i ON i.card_id = c.card_id AND i.merchant_id = c.merchant_id
  LEFT JOIN unknown_orders u ON u.card_id = c.card_id AND u.merchant_id = c.merchant_id
  LEFT JOIN sums s ON s.card_id = c.card_id
),
expected AS (
  SELECT k.*,
         CASE
           WHEN NOT k.issue_linked THEN NULL
           WHEN k.status = 'CANCELLED' THEN 0
           WHEN k.orders_unknown THEN NULL
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
         WHEN m.expected_minor IS NULL AND m.orders_unknown
           THEN 'a DEPOSIT or WITHDRAW of the card has no order_no: its outcome cannot be linked'
         WHEN m.expected_minor IS NULL
           THEN m.too_precise || ' ledger amount(s) too precise for the currency (PRECISION_VIOLATION)'
       END AS unchecked_reason
FROM compared m
LEFT JOIN currency_exponents x ON x.currency = m.currency;
