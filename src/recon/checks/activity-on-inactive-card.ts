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
 * its card more than `grace` before it was created: a CANCEL, or a FREEZE with no UNFREEZE
 * submitted between the two, one submitted in the transaction's own instant included (section 6
 * asks for activity created before the next UNFREEZE, and that is not before it). Orders of one
 * instant are taken in journal order (`seq`), as ORDER_NOT_REFLECTED takes them: a file with
 * times to the second may hold a FREEZE and the UNFREEZE after it in one second, and the card
 * was active again after both. Only the cards with a FREEZE or a CANCEL can have one, so only
 * their transactions are read: found by `transactions_by_card`, read in rowid order (`rowid IN`
 * walks the rowids sorted), which halves the time of reading them in index order.
 */
/**
 * The `seq` of the earliest order that had stopped transaction `t`'s card more than `grace`
 * before it was created, counting orders still awaiting their answer (SUBMITTED, no orderNo)
 * as stops or restarts only where `awaiting` says so.
 */
function stopOf(awaiting: { stops: boolean; restarts: boolean }): string {
  return `(SELECT s.seq FROM stops s
          WHERE s.card_id = t.card_id AND s.kind IN ('FREEZE', 'CANCEL')
            ${awaiting.stops ? '' : 'AND NOT s.awaiting'}
            AND ${epochMsSql('t.created_at')} - s.at_ms > @graceMs
            AND (s.kind = 'CANCEL' OR NOT EXISTS (
              SELECT 1 FROM stops u
              WHERE u.card_id = s.card_id AND u.kind = 'UNFREEZE'
                ${awaiting.restarts ? '' : 'AND NOT u.awaiting'}
                AND (u.submitted_at > s.submitted_at
                  OR (u.submitted_at = s.submitted_at AND u.seq > s.seq))
                AND u.submitted_at <= t.created_at))
          ORDER BY s.submitted_at, s.seq LIMIT 1)`;
}

/**
 * For each non-DECLINED PURCHASE or VERIFICATION, the earliest journal order that had stopped
 * its card more than `grace` before it was created: a CANCEL, or a FREEZE with no UNFREEZE
 * submitted between the two, one submitted in the transaction's own instant included (section 6
 * asks for activity created before the next UNFREEZE, and that is not before it). Orders of one
 * instant are taken in journal order (`seq`), as ORDER_NOT_REFLECTED takes them: a file with
 * times to the second may hold a FREEZE and the UNFREEZE after it in one second, and the card
 * was active again after both. An order still awaiting its answer may or may not have reached
 * the upstream: such a FREEZE or CANCEL does not stop the card and such an UNFREEZE restarts it,
 * so what is reported holds either way, and a transaction that one of them could make a finding
 * (were it taken, or were it lost) is `undecided`, its finding kept open. Only the cards with a FREEZE or a CANCEL can have one, so only their
 * transactions are read: found by `transactions_by_card`, read in rowid order (`rowid IN` walks
 * the rowids sorted), which halves the time of reading them in index order.
 */
const ACTIVITY = `${JOURNAL_CTE},
stops AS MATERIALIZED (
  SELECT seq, card_id, kind, submitted_at, ${epochMsSql('submitted_at')} AS at_ms,
         state = 'SUBMITTED' AND order_no IS NULL AS awaiting
  FROM journal
  -- An accepted FREEZE or CANCEL stops the card: one with an orderNo, or one the upstream
  -- answered with a 2xx that named none (ACCEPTED without orderNo: no link is needed here); one
  -- still awaiting its answer may have. Any UNFREEZE the upstream did not reject may have
  -- restarted it (one journaled without orderNo too), so activity after it is no finding.
  WHERE card_id IS NOT NULL
    AND ((kind IN ('FREEZE', 'CANCEL')
          AND (unlinkable IS NULL OR state IN ('ACCEPTED', 'SUBMITTED')))
      OR (kind = 'UNFREEZE' AND state <> 'REJECTED'))
),
stopped AS MATERIALIZED (
  SELECT DISTINCT card_id FROM stops WHERE kind IN ('FREEZE', 'CANCEL')
),
awaiting_cards AS MATERIALIZED (
  SELECT DISTINCT card_id FROM stops WHERE awaiting
),
activity AS (
  SELECT t.transaction_id, t.card_id, t.trade_no, t.type, t.amount, t.amount_minor, t.currency,
         t.created_at, ${stopOf({ stops: false, restarts: true })} AS stop_seq
  FROM transactions t
  WHERE t.rowid IN (
      SELECT u.rowid FROM stopped x CROSS JOIN transactions u WHERE u.card_id = x.card_id)
    AND t.merchant_id = @merchantId AND t.type IN ('PURCHASE', 'VERIFICATION')
    AND t.status <> 'DECLINED'
),
undecided AS (
  SELECT t.transaction_id FROM transactions t
  WHERE t.rowid IN (
      SELECT u.rowid FROM awaiting_cards x CROSS JOIN transactions u WHERE u.card_id = x.card_id)
    AND t.merchant_id = @merchantId AND t.type IN ('PURCHASE', 'VERIFICATION')
    AND t.status <> 'DECLINED'
    AND ${stopOf({ stops: false, restarts: true })} IS NULL
    AND (${stopOf({ stops: true, restarts: true })} IS NOT NULL
      OR ${stopOf({ stops: false, restarts: false })} IS NOT NULL)
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
    const findings = rows.map((t) =>
      makeFinding(CODE, merchantId, {
        transactionId: t.transactionId,
        cardId: t.cardId,
        tradeNo: t.tradeNo,
        orderNo: t.orderNo,
        merchantOrderNo: t.merchantOrderNo,
        currency: t.currency,
        actual: amountText(t.amountMinor, t.amount, t.currency),
        detail: `${t.type} of ${t.amount} ${t.currency} at ${t.createdAt}, after the ${t.stopKind} submitted ${t.stoppedAt}`,
      }),
    );
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
