import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { epochMsSql, JOURNAL_CTE } from '../journal-sql.js';
import { amountText } from '../money-text.js';

const CODE = 'ACTIVITY_ON_INACTIVE_CARD';

const AWAITING_REASON =
  'a FREEZE, UNFREEZE or CANCEL of the card that decides it awaits its answer (no orderNo yet)';

/**
 * For each non-DECLINED PURCHASE or VERIFICATION, the earliest journal order that had stopped
 * its card more than `grace` before it was created: a CANCEL that did not fail, or a FREEZE that
 * did not fail (`failed_freezes`) with no UNFREEZE submitted between the two, one submitted in the transaction's own instant included
 * (section 6 asks for activity created before the next UNFREEZE, and that is not before it).
 * Orders of one instant are taken in journal order (`seq`), as ORDER_NOT_REFLECTED takes them: a
 * file with times to the second may hold a FREEZE and the UNFREEZE after it in one second, and
 * the card was active again after both. An order still awaiting its answer may or may not have reached
 * the upstream: such a FREEZE or CANCEL does not stop the card and such an UNFREEZE restarts it,
 * so what is reported holds either way, and a transaction that one of them could make a finding
 * (were it taken, or were it lost) is `undecided`, its finding kept open. Only the cards with a
 * FREEZE or a CANCEL can have one, so only their transactions are read: found by
 * `transactions_by_card`, read in rowid order (`rowid IN` walks the rowids sorted), which halves
 * the time of reading them in index order.
 *
 * A stop still holds at a transaction when it ends after it: a FREEZE at the first UNFREEZE
 * after it (`restarted_at`, or `answered_restarted_at` counting only UNFREEZEs answered), a
 * CANCEL never. Taken in one pass per card, from the latest end down, each transaction meets
 * exactly the stops that still hold at it, and the earliest of them (`ord`, the card's orders in
 * journal order) is its stop if more than grace before it. Seeking it per transaction instead,
 * among the card's stops and each against the card's UNFREEZEs, took minutes for a card frozen
 * and unfrozen thousands of times.
 */
const ACTIVITY = `${JOURNAL_CTE},
-- Each card's FREEZE, UNFREEZE and CANCEL orders the upstream did not reject, in journal order:
-- the FREEZE and UNFREEZE ones latest first (\`recency\` 1), as ORDER_NOT_REFLECTED ranks them,
-- and each with the order after it (\`next_*\`; \`next_accepted\`: known to be accepted, with an
-- orderNo or ACCEPTED without one).
switch_orders AS (
  SELECT seq, card_id, kind, submitted_at, state = 'SUBMITTED' AND order_no IS NULL AS awaiting,
         row_number() OVER (PARTITION BY card_id, kind = 'CANCEL'
                            ORDER BY submitted_at DESC, seq DESC) AS recency,
         lead(kind) OVER next AS next_kind, lead(submitted_at) OVER next AS next_at,
         lead(order_no IS NOT NULL OR state = 'ACCEPTED') OVER next AS next_accepted
  FROM journal
  WHERE card_id IS NOT NULL AND kind IN ('FREEZE', 'UNFREEZE', 'CANCEL') AND state <> 'REJECTED'
  WINDOW next AS (PARTITION BY card_id ORDER BY submitted_at, seq)
),
-- A FREEZE that failed (the card blocked while it was pending, then unblocked) leaves no FEE
-- record, only its card's status. An answered FREEZE did not stop its card when the card was
-- ACTIVE after it: read so more than grace after it, the card's latest FREEZE or UNFREEZE with
-- no CANCEL that did not fail after it; or the next order of the card an accepted FREEZE or
-- CANCEL, which the upstream takes from an ACTIVE card only (reference-model section 2), so a
-- FREEZE made again after one that failed. Unless the card was read FROZEN since (up to that
-- next order): it held, and the service unfroze it. Such a FREEZE stopped nothing
-- (ORDER_NOT_REFLECTED reports the latest): the card's purchases were no activity on an
-- inactive card, and were reported as such every night. Anti-joins, one lookup per such
-- FREEZE, rather than subqueries run per row.
unheld_freezes AS MATERIALIZED (
  SELECT s.seq, s.card_id, ${epochMsSql('s.submitted_at')} AS at_ms, NULL AS until_ms
  FROM switch_orders s
  JOIN cards c ON c.card_id = s.card_id AND c.merchant_id = @merchantId
  LEFT JOIN journal x ON x.card_id = s.card_id AND x.kind = 'CANCEL' AND x.state <> 'REJECTED'
    AND x.succeeded IS NOT 0
    AND (x.submitted_at > s.submitted_at OR (x.submitted_at = s.submitted_at AND x.seq > s.seq))
  WHERE s.kind = 'FREEZE' AND s.recency = 1 AND NOT s.awaiting AND c.status = 'ACTIVE'
    AND ${epochMsSql('c.observed_at')} - ${epochMsSql('s.submitted_at')} > @graceMs
    AND x.seq IS NULL
  UNION ALL
  SELECT s.seq, s.card_id, ${epochMsSql('s.submitted_at')}, ${epochMsSql('s.next_at')}
  FROM switch_orders s
  WHERE s.kind = 'FREEZE' AND NOT s.awaiting AND s.next_kind IN ('FREEZE', 'CANCEL')
    AND s.next_accepted
),
failed_freezes AS (
  SELECT f.seq FROM unheld_freezes f
  LEFT JOIN card_history h ON h.card_id = f.card_id AND h.status = 'FROZEN'
    AND ${epochMsSql('h.observed_at')} > f.at_ms
    AND (f.until_ms IS NULL OR ${epochMsSql('h.observed_at')} < f.until_ms)
  WHERE h.card_id IS NULL
),
-- An UNFREEZE that failed restarted nothing: answered, its card's latest FREEZE or UNFREEZE with
-- no CANCEL that did not fail after it (a CANCEL is taken from an ACTIVE card only), the card
-- read FROZEN more than grace after it and never read ACTIVE since. The FREEZE before it still
-- held, and a purchase after it was activity on a frozen card, not reported. Only FROZEN: a card
-- read BLOCKED may have been unfrozen and then blocked by the service.
failed_unfreezes AS (
  SELECT s.seq
  FROM switch_orders s
  JOIN cards c ON c.card_id = s.card_id AND c.merchant_id = @merchantId
  LEFT JOIN journal x ON x.card_id = s.card_id AND x.kind = 'CANCEL' AND x.state <> 'REJECTED'
    AND x.succeeded IS NOT 0
    AND (x.submitted_at > s.submitted_at OR (x.submitted_at = s.submitted_at AND x.seq > s.seq))
  LEFT JOIN card_history h ON h.card_id = s.card_id AND h.status = 'ACTIVE'
    AND ${epochMsSql('h.observed_at')} > ${epochMsSql('s.submitted_at')}
  WHERE s.kind = 'UNFREEZE' AND s.recency = 1 AND NOT s.awaiting AND c.status = 'FROZEN'
    AND ${epochMsSql('c.observed_at')} - ${epochMsSql('s.submitted_at')} > @graceMs
    AND x.seq IS NULL AND h.card_id IS NULL
),
stop_orders AS (
  SELECT seq, card_id, kind, submitted_at, ${epochMsSql('submitted_at')} AS at_ms,
         state = 'SUBMITTED' AND order_no IS NULL AS awaiting
  FROM journal
  -- An accepted FREEZE or CANCEL stops the card: one with an orderNo, or one the upstream
  -- answered with a 2xx that named none (ACCEPTED without orderNo: no link is needed here); one
  -- still awaiting its answer may have. A CANCEL whose FEE record is DECLINED failed (the card
  -- was blocked while it was pending, reference-model section 3): it stopped nothing, and
  -- neither did a FREEZE that failed (\`failed_freezes\`). Any
  -- UNFREEZE the upstream did not reject may have restarted it (one journaled without orderNo
  -- too), so activity after it is no finding, unless it failed (\`failed_unfreezes\`).
  WHERE card_id IS NOT NULL
    AND ((kind IN ('FREEZE', 'CANCEL')
          AND (unlinkable IS NULL OR state IN ('ACCEPTED', 'SUBMITTED'))
          AND NOT (kind = 'CANCEL' AND succeeded IS 0)
          AND seq NOT IN (SELECT seq FROM failed_freezes))
      OR (kind = 'UNFREEZE' AND state <> 'REJECTED'
          AND seq NOT IN (SELECT seq FROM failed_unfreezes)))
),
stops AS MATERIALIZED (
  SELECT seq, card_id, kind, submitted_at, at_ms, awaiting,
         row_number() OVER (PARTITION BY card_id ORDER BY submitted_at, seq) AS ord,
         min(CASE WHEN kind = 'UNFREEZE' THEN submitted_at END) OVER later AS restarted_at,
         min(CASE WHEN kind = 'UNFREEZE' AND NOT awaiting THEN submitted_at END) OVER later
           AS answered_restarted_at
  FROM stop_orders
  WINDOW later AS (PARTITION BY card_id ORDER BY submitted_at DESC, seq DESC
                   ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
),
-- The cards with a FREEZE or CANCEL, and the first one's time: only what a card did after it can
-- be activity on an inactive card, so only those transactions are read (through
-- transactions_by_card, by card and time), often a small part of a card's history.
stopped AS MATERIALIZED (
  SELECT card_id, min(submitted_at) AS first_stop_at FROM stops
  WHERE kind IN ('FREEZE', 'CANCEL') GROUP BY card_id
),
-- Per transaction, the \`ord\` of the earliest stop that still holds at it: of the stops
-- answered, UNFREEZEs awaiting their answer ending them (\`answered_stop\`, what is reported);
-- of all stops (\`any_stop\`); of the stops answered, ended by the UNFREEZEs answered only
-- (\`answered_only\`). Where a stop ends in a transaction's instant, the transaction comes first.
first_stops AS MATERIALIZED (
  SELECT txn_rowid, card_id, created_at,
         min(CASE WHEN NOT awaiting THEN ord END) OVER by_end AS answered_stop,
         min(ord) OVER by_end AS any_stop,
         min(CASE WHEN NOT awaiting THEN ord END) OVER by_answered_end AS answered_only
  FROM (
    SELECT NULL AS txn_rowid, card_id, NULL AS created_at, ord, awaiting,
           CASE WHEN kind = 'FREEZE' THEN restarted_at END AS ends_at,
           CASE WHEN kind = 'FREEZE' THEN answered_restarted_at END AS answered_ends_at
    FROM stops WHERE kind IN ('FREEZE', 'CANCEL')
    UNION ALL
    SELECT t.rowid, t.card_id, t.created_at, NULL, NULL, t.created_at, t.created_at
    FROM transactions t
    WHERE t.rowid IN (
        SELECT u.rowid FROM stopped x CROSS JOIN transactions u
        WHERE u.card_id = x.card_id AND u.created_at > x.first_stop_at)
      AND t.merchant_id = @merchantId AND t.type IN ('PURCHASE', 'VERIFICATION')
      AND t.status <> 'DECLINED'
  )
  WINDOW by_end AS (PARTITION BY card_id ORDER BY ends_at DESC NULLS FIRST,
                      txn_rowid IS NOT NULL DESC ROWS UNBOUNDED PRECEDING),
         by_answered_end AS (PARTITION BY card_id ORDER BY answered_ends_at DESC NULLS FIRST,
                               txn_rowid IS NOT NULL DESC ROWS UNBOUNDED PRECEDING)
),
-- The \`seq\` of each such stop when it was more than grace before the transaction, else NULL.
stop_seqs AS (
  SELECT f.txn_rowid, a.seq AS stop_seq, b.seq AS any_stop_seq, c.seq AS answered_only_seq
  FROM first_stops f
  LEFT JOIN stops a ON a.card_id = f.card_id AND a.ord = f.answered_stop
    AND ${epochMsSql('f.created_at')} - a.at_ms > @graceMs
  LEFT JOIN stops b ON b.card_id = f.card_id AND b.ord = f.any_stop
    AND ${epochMsSql('f.created_at')} - b.at_ms > @graceMs
  LEFT JOIN stops c ON c.card_id = f.card_id AND c.ord = f.answered_only
    AND ${epochMsSql('f.created_at')} - c.at_ms > @graceMs
  WHERE f.txn_rowid IS NOT NULL
),
activity AS (
  SELECT t.transaction_id, t.card_id, t.trade_no, t.type, t.amount, t.amount_minor, t.currency,
         t.created_at, s.stop_seq
  FROM stop_seqs s CROSS JOIN transactions t ON t.rowid = s.txn_rowid
),
-- Only a card with an order awaiting its answer can have the three differ.
undecided AS (
  SELECT t.transaction_id FROM stop_seqs s CROSS JOIN transactions t ON t.rowid = s.txn_rowid
  WHERE s.stop_seq IS NULL AND (s.any_stop_seq IS NOT NULL OR s.answered_only_seq IS NOT NULL)
)`;

/**
 * ACTIVITY_ON_INACTIVE_CARD: a non-DECLINED PURCHASE or VERIFICATION created more than `grace`
 * after an accepted FREEZE of its card (and before the next UNFREEZE) or after a CANCEL.
 */
export const activityOnInactiveCard: Check = {
  code: CODE,
  severity: 'error',
  description:
    'a non-declined PURCHASE or VERIFICATION more than grace after a FREEZE (before the next UNFREEZE) or a CANCEL',
  uses: ['journal'],
  run({ db, merchantId, settings }: CheckContext) {
    const params = { merchantId, graceMs: settings.graceMs };
    const rows = db
      .prepare(
        `WITH ${ACTIVITY}
         SELECT a.transaction_id AS transactionId, a.card_id AS cardId, a.trade_no AS tradeNo,
                a.type, a.amount, a.amount_minor AS amountMinor, a.currency, a.created_at AS createdAt, j.kind AS stopKind,
                j.order_no AS orderNo, j.merchant_order_no AS merchantOrderNo,
                j.submitted_at AS stoppedAt
         FROM activity a JOIN journal j ON j.seq = a.stop_seq
         ORDER BY a.transaction_id`,
      )
      .all(params) as {
      transactionId: string;
      cardId: string;
      tradeNo: string;
      type: string;
      amount: string;
      amountMinor: number | null;
      currency: string;
      createdAt: string;
      stopKind: string;
      orderNo: string | null;
      merchantOrderNo: string;
      stoppedAt: string;
    }[];
    const findings = rows.map((t) => {
      const amount = amountText(t.amountMinor, t.amount, t.currency);
      return makeFinding(CODE, merchantId, {
        transactionId: t.transactionId,
        cardId: t.cardId,
        tradeNo: t.tradeNo,
        orderNo: t.orderNo,
        merchantOrderNo: t.merchantOrderNo,
        currency: t.currency,
        actual: amount,
        detail: `${t.type} of ${amount} ${t.currency} at ${t.createdAt}, after the ${t.stopKind} submitted ${t.stoppedAt}`,
      });
    });
    const examined = db
      .prepare(
        `SELECT count(*) AS n FROM transactions NOT INDEXED
         WHERE merchant_id = ? AND type IN ('PURCHASE', 'VERIFICATION') AND status <> 'DECLINED'`,
      )
      .get(merchantId) as { n: number };
    const undecided = db
      .prepare(`WITH ${ACTIVITY} SELECT transaction_id AS id FROM undecided`)
      .pluck()
      .all(params) as string[];
    return new CoverageTally()
      .examine('transactions', examined.n - undecided.length)
      .skip('transactions', AWAITING_REASON, undecided.length)
      .leaveOpen('transactionId', undecided)
      .outcome(CODE, merchantId, findings);
  },
};
