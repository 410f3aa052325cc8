import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { epochMsSql, JOURNAL_CTE } from '../journal-sql.js';
import { amountText } from '../money-text.js';
import { QUARANTINED_CTE, QUARANTINED_REASON } from '../quarantined-sql.js';
import { reasonCounts } from '../reason-counts.js';

const CODE = 'ORDER_NOT_REFLECTED';

/** Why an accepted order cannot be judged yet: no cutoff, or still within grace. */
const TIMING = `WHEN @cutoff IS NULL THEN 'no synced range: cutoff unknown'
      WHEN j.submitted_at >= @graceLine THEN 'within grace at the cutoff'`;

/** Why a FREEZE or UNFREEZE is left undecided when its card's status is older than the order. */
const READ_TOO_SOON =
  'card last read before the order was past grace (its sync failed on the cards): its status may not show it';

/** Journal row `j` was accepted by the upstream with a 2xx that named no orderNo. */
const ORDERLESS = `(j.state = 'ACCEPTED' AND j.order_no IS NULL)`;

/** Order `x` was sent and no answer is known yet: it may never have reached the upstream. */
const AWAITING = `(x.state = 'SUBMITTED' AND x.order_no IS NULL)`;

/**
 * Of each FREEZE, UNFREEZE or CANCEL, how many of its card's such orders the upstream did not
 * reject follow it in journal order: answered ones (`later_answered`), ones still awaiting their
 * answer (`later_awaiting`) and CANCELs that did not fail (`later_cancels`); none without a
 * card. Counted in one pass over the card's orders, its rows after the current one: looking the
 * later orders up for each order instead read a card's whole history per order, and a card with
 * 20,000 FREEZE and UNFREEZE orders took minutes.
 */
function laterSwitchCount(condition: string): string {
  return `CASE WHEN x.card_id IS NULL THEN 0
           ELSE count(CASE WHEN x.state <> 'REJECTED' AND ${condition} THEN 1 END) OVER later END`;
}

const CANDIDATES = `${JOURNAL_CTE},
${QUARANTINED_CTE},
-- Any FREEZE or UNFREEZE the upstream did not reject may be the card's latest, one journaled
-- without orderNo too: it cannot be judged itself, but the card's status may be its doing, so
-- the orders before it are superseded (ACTIVITY_ON_INACTIVE_CARD counts it the same way). So
-- does any such CANCEL after the latest, but one whose FEE record is DECLINED: that CANCEL
-- failed (the card was blocked while it was pending) and left the card as it was. One still
-- awaiting its answer (SUBMITTED, no orderNo) may never have reached the upstream: an order it
-- alone follows is left undecided, neither judged nor cleared, until \`orders settle\` learns
-- its fate.
switch_orders AS (
  SELECT x.*,
         ${laterSwitchCount(`NOT ${AWAITING}`)} AS later_answered,
         ${laterSwitchCount(AWAITING)} AS later_awaiting,
         ${laterSwitchCount("x.kind = 'CANCEL' AND x.succeeded IS NOT 0")} AS later_cancels
  FROM journal x WHERE x.kind IN ('FREEZE', 'UNFREEZE', 'CANCEL')
  WINDOW later AS (PARTITION BY x.card_id ORDER BY x.submitted_at, x.seq
                   ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
),
switches AS (
  SELECT j.*,
         CASE WHEN j.state <> 'REJECTED' THEN row_number() OVER (
           PARTITION BY j.card_id, j.state = 'REJECTED' ORDER BY j.submitted_at DESC, j.seq DESC)
         END AS recency
  FROM switch_orders j WHERE j.kind IN ('FREEZE', 'UNFREEZE')
),
candidates AS (
  SELECT j.order_no, j.merchant_order_no, j.kind, j.card_id, j.amount, j.amount_minor,
         j.currency, j.submitted_at, NULL AS expected_status, NULL AS card_status,
         NULL AS orderless,
         CASE
           WHEN j.unlinkable IS NOT NULL THEN j.unlinkable
           ${TIMING}
           WHEN @start IS NOT NULL AND j.submitted_at < @start
             THEN 'submitted before the synced range: its FEE record is not mirrored'
           WHEN j.fee_id IS NULL AND j.order_no IN (SELECT trade_no FROM quarantined_transactions)
             THEN '${QUARANTINED_REASON}'
         END AS reason,
         j.fee_id IS NULL AS unreflected
  FROM journal j WHERE j.kind IN ('ISSUE', 'DEPOSIT', 'WITHDRAW', 'CANCEL')
  UNION ALL
  SELECT j.order_no, j.merchant_order_no, j.kind, j.card_id, j.amount, j.amount_minor,
         j.currency, j.submitted_at, CASE j.kind WHEN 'FREEZE' THEN 'FROZEN' ELSE 'ACTIVE' END, c.status,
         ${ORDERLESS},
         CASE
           -- A FREEZE or UNFREEZE is judged by its card's status, not by a FEE record: one the
           -- upstream accepted with a 2xx naming no orderNo needs no link (its finding is
           -- identified by its merchantOrderNo). One imported without orderNo is not known to
           -- have been accepted.
           WHEN j.unlinkable IS NOT NULL AND NOT ${ORDERLESS} THEN j.unlinkable
           WHEN @cutoff IS NULL THEN 'no synced range: cutoff unknown'
           WHEN j.card_id IS NULL THEN 'no card named'
           WHEN j.later_answered = 0 AND j.later_awaiting > 0
             THEN 'a later FREEZE, UNFREEZE or CANCEL of the card awaits its answer'
           WHEN j.recency > 1 THEN NULL
           ${TIMING}
           WHEN c.card_id IS NULL THEN 'card not mirrored'
           -- A sync that failed on the cards leaves a status read before the order, or too soon
           -- after it, while the cutoff moved on: that status cannot show the order's outcome.
           -- Read exactly grace after it, the order was not past grace yet (as one exactly grace
           -- old at the cutoff is within grace).
           WHEN ${epochMsSql('c.observed_at')} - ${epochMsSql('j.submitted_at')} <= @graceMs
             THEN '${READ_TOO_SOON}'
         END,
         j.recency = 1
           AND c.status IS NOT (CASE j.kind WHEN 'FREEZE' THEN 'FROZEN' ELSE 'ACTIVE' END)
           AND j.later_cancels = 0
  FROM switches j
  LEFT JOIN cards c ON c.card_id = j.card_id AND c.merchant_id = @merchantId
)`;

/**
 * ORDER_NOT_REFLECTED: an accepted order older than `grace` at the cutoff without its outcome.
 * An ISSUE, DEPOSIT, WITHDRAW or CANCEL without its FEE record; the card's latest FREEZE or
 * UNFREEZE (unless a CANCEL follows it) while the card is not FROZEN or ACTIVE respectively.
 * TOPUP is not an API order and is left to MERCHANT_BALANCE_MISMATCH.
 */
export const orderNotReflected: Check = {
  code: CODE,
  severity: 'error',
  description: 'an accepted order older than grace at the cutoff without its outcome',
  uses: ['journal'],
  run({ db, merchantId, range, settings }: CheckContext) {
    const graceLine =
      range.cutoff === null
        ? null
        : new Date(Date.parse(range.cutoff) - settings.graceMs).toISOString();
    const params = {
      merchantId,
      cutoff: range.cutoff,
      start: range.start,
      graceLine,
      graceMs: settings.graceMs,
    };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT order_no AS orderNo, merchant_order_no AS merchantOrderNo, kind,
                card_id AS cardId, amount, amount_minor AS amountMinor, currency,
                submitted_at AS submittedAt,
                expected_status AS expectedStatus, card_status AS cardStatus
         FROM candidates WHERE reason IS NULL AND unreflected ORDER BY order_no`,
      )
      .all(params) as {
      orderNo: string | null;
      merchantOrderNo: string;
      kind: string;
      cardId: string | null;
      amount: string | null;
      amountMinor: number | null;
      currency: string | null;
      submittedAt: string;
      expectedStatus: string | null;
      cardStatus: string | null;
    }[];
    const findings = rows.map((o) =>
      makeFinding(CODE, merchantId, {
        orderNo: o.orderNo,
        merchantOrderNo: o.merchantOrderNo,
        cardId: o.cardId,
        currency: o.currency,
        expected: o.expectedStatus,
        actual: o.cardStatus,
        detail:
          o.expectedStatus === null
            ? `${o.kind}${o.amount === null ? '' : ` of ${amountText(o.amountMinor, o.amount, o.currency)} ${o.currency}`} submitted ${o.submittedAt}: no FEE record by the cutoff ${range.cutoff}`
            : `${o.kind} submitted ${o.submittedAt}: card ${o.cardStatus}, not ${o.expectedStatus}, at the cutoff ${range.cutoff}`,
      }),
    );
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'order_no' });
    // A skipped FREEZE or UNFREEZE accepted without orderNo keeps its finding (identified by
    // its merchantOrderNo) open, as one with an orderNo does.
    const orderless = db
      .prepare(
        `WITH ${CANDIDATES} SELECT merchant_order_no FROM candidates
         WHERE reason IS NOT NULL AND orderless`,
      )
      .pluck()
      .all(params) as string[];
    return new CoverageTally()
      .addGrouped('orders', counts, 'orderNo')
      .leaveOpen('merchantOrderNo', orderless)
      .outcome(CODE, merchantId, findings);
  },
};
