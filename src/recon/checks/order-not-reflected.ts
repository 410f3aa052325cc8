import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { epochMsSql, JOURNAL_CTE } from '../journal-sql.js';
import { QUARANTINED_CTE, QUARANTINED_REASON } from '../quarantined-sql.js';
import { reasonCounts } from '../reason-counts.js';

const CODE = 'ORDER_NOT_REFLECTED';

/** Why an accepted order cannot be judged yet: no cutoff, or still within grace. */
const TIMING = `WHEN @cutoff IS NULL THEN 'no synced range: cutoff unknown'
      WHEN j.submitted_at >= @graceLine THEN 'within grace at the cutoff'`;

/** Why a FREEZE or UNFREEZE is left undecided when its card's status is older than the order. */
const READ_TOO_SOON =
  'card last read before the order was past grace (its sync failed on the cards): its status may not show it';

/** The card's orders of `kinds` (SQL list) after order `j` in journal order, bar those refused. */
function laterOrders(kinds: string): string {
  return `SELECT 1 FROM journal x
             WHERE x.card_id = j.card_id AND x.kind IN (${kinds}) AND x.state <> 'REJECTED'
               AND (x.submitted_at > j.submitted_at OR (x.submitted_at = j.submitted_at AND x.seq > j.seq))`;
}

/** The card's FREEZE, UNFREEZE and CANCEL orders after order `j`, bar those refused. */
const LATER_SWITCH = laterOrders("'FREEZE', 'UNFREEZE', 'CANCEL'");

/** Order `x` was sent and no answer is known yet: it may never have reached the upstream. */
const AWAITING = `(x.state = 'SUBMITTED' AND x.order_no IS NULL)`;

const CANDIDATES = `${JOURNAL_CTE},
${QUARANTINED_CTE},
-- Any FREEZE or UNFREEZE the upstream did not reject may be the card's latest, one journaled
-- without orderNo too: it cannot be judged itself, but the card's status may be its doing, so
-- the orders before it are superseded (ACTIVITY_ON_INACTIVE_CARD counts it the same way). So
-- does any such CANCEL after the latest. One still awaiting its answer (SUBMITTED, no orderNo)
-- may never have reached the upstream: an order it alone follows is left undecided, neither
-- judged nor cleared, until \`orders settle\` learns its fate.
switches AS (
  SELECT j.*,
         CASE WHEN j.state <> 'REJECTED' THEN row_number() OVER (
           PARTITION BY j.card_id, j.state = 'REJECTED' ORDER BY j.submitted_at DESC, j.seq DESC)
         END AS recency
  FROM journal j WHERE j.kind IN ('FREEZE', 'UNFREEZE')
),
candidates AS (
  SELECT j.order_no, j.merchant_order_no, j.kind, j.card_id, j.amount, j.currency,
         j.submitted_at, NULL AS expected_status, NULL AS card_status,
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
  SELECT j.order_no, j.merchant_order_no, j.kind, j.card_id, j.amount, j.currency,
         j.submitted_at, CASE j.kind WHEN 'FREEZE' THEN 'FROZEN' ELSE 'ACTIVE' END, c.status,
         CASE
           WHEN j.unlinkable IS NOT NULL THEN j.unlinkable
           WHEN @cutoff IS NULL THEN 'no synced range: cutoff unknown'
           WHEN j.card_id IS NULL THEN 'no card named'
           WHEN NOT EXISTS (${LATER_SWITCH} AND NOT ${AWAITING})
             AND EXISTS (${LATER_SWITCH} AND ${AWAITING})
             THEN 'a later FREEZE, UNFREEZE or CANCEL of the card awaits its answer'
           WHEN j.recency > 1 THEN NULL
           ${TIMING}
           WHEN c.card_id IS NULL THEN 'card not mirrored'
           -- A sync that failed on the cards leaves a status read before the order, or too soon
           -- after it, while the cutoff moved on: that status cannot show the order's outcome.
           WHEN ${epochMsSql('c.observed_at')} - ${epochMsSql('j.submitted_at')} < @graceMs
             THEN '${READ_TOO_SOON}'
         END,
         j.recency = 1
           AND c.status IS NOT (CASE j.kind WHEN 'FREEZE' THEN 'FROZEN' ELSE 'ACTIVE' END)
           AND NOT EXISTS (${laterOrders("'CANCEL'")})
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
                card_id AS cardId, amount, currency, submitted_at AS submittedAt,
                expected_status AS expectedStatus, card_status AS cardStatus
         FROM candidates WHERE reason IS NULL AND unreflected ORDER BY order_no`,
      )
      .all(params) as {
      orderNo: string;
      merchantOrderNo: string;
      kind: string;
      cardId: string | null;
      amount: string | null;
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
            ? `${o.kind}${o.amount === null ? '' : ` of ${o.amount} ${o.currency}`} submitted ${o.submittedAt}: no FEE record by the cutoff ${range.cutoff}`
            : `${o.kind} submitted ${o.submittedAt}: card ${o.cardStatus}, not ${o.expectedStatus}, at the cutoff ${range.cutoff}`,
      }),
    );
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'order_no' });
    return new CoverageTally()
      .addGrouped('orders', counts, 'orderNo')
      .outcome(CODE, merchantId, findings);
  },
};
