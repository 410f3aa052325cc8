-- 006: an order whose FEE record is PENDING counts in its card's ledger.
--
-- The reference model gives an order's FEE record no status but COMPLETED or DECLINED. Should an
-- upstream show one PENDING, card_ledger (004) charged the PENDING fee but left out the order's
-- own amount, so card_balance_check reported a mismatch the reconciliation does not. The view is
-- recreated with the same columns; card_balance_check reads it by name and needs no change.
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
