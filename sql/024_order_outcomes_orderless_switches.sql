-- 024: order_outcomes judges a FREEZE or UNFREEZE the upstream accepted without an order_no by
-- its card's status, `reflected` or `awaiting_outcome`, not `unlinkable`; and a CANCEL that
-- failed no longer settles the FREEZE or UNFREEZE before it.
--
-- The interface shows no answer body for freeze and unfreeze, and any 2xx is success: the order
-- desk journals such an answer ACCEPTED without order_no. ORDER_NOT_REFLECTED judges it by its
-- card's status, which needs no link to a FEE record (cardsync e9476d0), and reports one that
-- failed by its merchant_order_no; the view still called it `unlinkable`, so example 10 of
-- sql/examples.sql left out an order the reports named as not reflected. One imported without
-- its order_no (IMPORTED) is not known to have been accepted and stays `unlinkable`, as the check
-- skips it.
--
-- A CANCEL whose FEE record is DECLINED failed: the card was blocked while it was pending, and
-- left as it was. ORDER_NOT_REFLECTED counts only a CANCEL that did not fail as following a
-- FREEZE or UNFREEZE; the view took any CANCEL answered, so a FREEZE that never took, followed
-- by such a CANCEL, was `reflected` while the report named it, and example 10 left it out.
-- fee_records is read for the CANCEL too, and is MATERIALIZED so that both readings share one
-- ranking of the FEE records (unshared, SQLite ranked them twice).
--
-- The view is recreated with the same columns, in the same order; card_ledger and
-- card_balance_check count only `completed` and `fee_pending` orders, and are unchanged.
DROP VIEW order_outcomes;

CREATE VIEW order_outcomes AS
-- One row per order of the merchant's journal (`orders`), with its outcome as the upstream shows
-- it: the FEE transaction whose trade_no is the order's order_no (reference-model.md section 3;
-- the earliest by created_at, then transaction_id, should there be more than one), or for a
-- FREEZE or UNFREEZE, which leaves no FEE record, its card's status.
--   outcome: completed (FEE COMPLETED or SETTLED), failed (FEE DECLINED), fee_pending (FEE
--     PENDING), reflected (FREEZE or UNFREEZE: its card is FROZEN, or ACTIVE, as it asked, or a
--     later FREEZE, UNFREEZE or CANCEL of the card is journaled, not REJECTED and not still
--     awaiting its answer, with or without an order_no; a CANCEL whose FEE record is DECLINED
--     does not count), awaiting_outcome (accepted, no FEE
--     record mirrored yet; a FREEZE or UNFREEZE: the card's latest, not yet shown by its
--     status), fee_quarantined (accepted, its FEE record in quarantine: the upstream sent it
--     malformed, see the quarantine table), not_accepted (SUBMITTED, no order_no yet),
--     unlinkable (no order_no; but a FREEZE or UNFREEZE the upstream accepted without one, which
--     its card's status judges, as ORDER_NOT_REFLECTED does), rejected (REJECTED by the
--     upstream: never an order), topup (TOPUP: not an API order, it has no FEE record).
--   card_id: the card the FEE record names (the order's card once linked; NULL until then, and
--     for a FREEZE or UNFREEZE); journal_card_id: the card the journal names (NULL for ISSUE and
--     TOPUP).
--   outcome_at / outcome_seen_at: the FEE record's created_at / when the mirror first saw it.
--   fee_currency: the FEE record's currency (`currency` is the order's: NULL for a CANCEL, a
--     FREEZE or an UNFREEZE, which carry no amount).
-- Use it to follow orders: `WHERE outcome = 'awaiting_outcome'` lists the orders the upstream
-- has not settled (ORDER_NOT_REFLECTED once older than the grace period).
WITH quarantined_fees AS MATERIALIZED (
  -- The tradeNo of each unresolved quarantined transaction (NULL where its raw JSON lacks one).
  SELECT merchant_id,
         CAST(CASE json_valid(raw_json) WHEN 1 THEN json_extract(raw_json, '$.tradeNo') END AS TEXT)
           AS trade_no
  FROM quarantine
  WHERE resource = 'transactions' AND resolved_at IS NULL
),
fee_records AS MATERIALIZED (
  SELECT merchant_id, trade_no, transaction_id, card_id, status, amount, amount_minor, currency,
         created_at, first_seen_at
  FROM (
    SELECT t.*, row_number() OVER (
             PARTITION BY t.merchant_id, t.trade_no ORDER BY t.created_at, t.transaction_id
           ) AS rank
    FROM transactions t
    WHERE t.type = 'FEE'
  )
  WHERE rank = 1
),
status_orders AS (
  SELECT o.merchant_order_no, o.merchant_id, o.card_id, o.kind, o.submitted_at, o.rowid AS seq,
         row_number() OVER (
           PARTITION BY o.merchant_id, o.card_id ORDER BY o.submitted_at DESC, o.rowid DESC
         ) AS recency
  FROM orders o
  WHERE o.kind IN ('FREEZE', 'UNFREEZE') AND o.state <> 'REJECTED'
    AND NOT (o.state = 'SUBMITTED' AND nullif(o.order_no, '') IS NULL)
),
unreflected AS (
  SELECT s.merchant_order_no
  FROM status_orders s
  LEFT JOIN cards c ON c.card_id = s.card_id AND c.merchant_id = s.merchant_id
  WHERE s.recency = 1
    AND c.status IS NOT (CASE s.kind WHEN 'FREEZE' THEN 'FROZEN' ELSE 'ACTIVE' END)
    -- A later CANCEL whose FEE record is DECLINED failed (the card was blocked while it was
    -- pending) and left the card as it was: it settles nothing, as ORDER_NOT_REFLECTED has it.
    AND NOT EXISTS (
      SELECT 1 FROM orders x
      LEFT JOIN fee_records xf
        ON xf.merchant_id = x.merchant_id AND xf.trade_no = x.order_no AND x.order_no <> ''
      WHERE x.merchant_id = s.merchant_id AND x.card_id = s.card_id AND x.kind = 'CANCEL'
        AND x.state <> 'REJECTED' AND NOT (x.state = 'SUBMITTED' AND nullif(x.order_no, '') IS NULL)
        AND xf.status IS NOT 'DECLINED'
        AND (x.submitted_at > s.submitted_at
             OR (x.submitted_at = s.submitted_at AND x.rowid > s.seq))
    )
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
         WHEN nullif(o.order_no, '') IS NULL
              AND NOT (o.kind IN ('FREEZE', 'UNFREEZE') AND o.state = 'ACCEPTED') THEN 'unlinkable'
         WHEN o.kind IN ('FREEZE', 'UNFREEZE') AND u.merchant_order_no IS NULL THEN 'reflected'
         WHEN o.kind IN ('FREEZE', 'UNFREEZE') THEN 'awaiting_outcome'
         WHEN f.transaction_id IS NULL AND EXISTS (
           SELECT 1 FROM quarantined_fees q
           WHERE q.merchant_id = o.merchant_id AND q.trade_no = o.order_no
         ) THEN 'fee_quarantined'
         WHEN f.transaction_id IS NULL THEN 'awaiting_outcome'
         WHEN f.status IN ('COMPLETED', 'SETTLED') THEN 'completed'
         WHEN f.status = 'DECLINED' THEN 'failed'
         ELSE 'fee_pending'
       END AS outcome,
       f.currency AS fee_currency
FROM orders o
LEFT JOIN fee_records f
  ON f.merchant_id = o.merchant_id AND f.trade_no = o.order_no AND o.order_no <> ''
 AND o.kind <> 'TOPUP' AND o.state <> 'REJECTED'
LEFT JOIN unreflected u ON u.merchant_order_no = o.merchant_order_no;
