import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { JOURNAL_CTE, nextTermsOn, termsVersionSql } from '../journal-sql.js';
import { differenceText, moneyText } from '../money-text.js';
import { reasonCounts } from '../reason-counts.js';

const CODE = 'LOAD_OUT_OF_BOUNDS';

const CANDIDATES = `${JOURNAL_CTE},
candidates AS (
  SELECT j.order_no, j.merchant_order_no, coalesce(j.fee_card_id, j.card_id) AS card_id,
         j.offering_id, j.amount, j.amount_minor, j.currency,
         v.min_load_amount, v.min_load_amount_minor, v.max_load_amount, v.max_load_amount_minor,
         -- Within the next terms' bounds, when they may already have been in force.
         (w.currency IS j.currency AND j.amount_minor BETWEEN w.min_load_amount_minor
                                                        AND w.max_load_amount_minor) AS next_allows,
         CASE
           WHEN j.unlinkable IS NOT NULL THEN j.unlinkable
           WHEN j.amount_minor IS NULL THEN 'amount missing or too precise for its currency'
           WHEN v.id IS NULL THEN 'offering not mirrored'
           WHEN j.currency IS NOT v.currency THEN 'journal currency differs from the offering''s'
           WHEN v.min_load_amount_minor IS NULL OR v.max_load_amount_minor IS NULL
             THEN 'offering load bounds too precise for its currency'
         END AS reason
  FROM journal j
  LEFT JOIN offering_versions v
    ON v.id = j.offering_id AND v.version = ${termsVersionSql('j.offering_id', 'j.submitted_at')}
  LEFT JOIN offering_versions w ON ${nextTermsOn('w', 'v', 'j.submitted_at')}
  WHERE j.kind = 'ISSUE'
)`;

/**
 * LOAD_OUT_OF_BOUNDS: a journal ISSUE order whose amount lies outside its offering's
 * `[minLoadAmount, maxLoadAmount]` (the terms in force when it was submitted, and the next terms
 * too when they may already have been: {@link nextTermsOn}).
 */
export const loadOutOfBounds: Check = {
  code: CODE,
  severity: 'error',
  description: "an ISSUE order's amount outside the offering's [minLoadAmount, maxLoadAmount]",
  uses: ['journal'],
  run({ db, merchantId }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT order_no AS orderNo, merchant_order_no AS merchantOrderNo, card_id AS cardId,
                offering_id AS offeringId, amount_minor AS amountMinor, currency,
                min_load_amount_minor AS minMinor, max_load_amount_minor AS maxMinor
         FROM candidates
         WHERE reason IS NULL AND (amount_minor < min_load_amount_minor OR amount_minor > max_load_amount_minor)
           AND NOT coalesce(next_allows, 0)
         ORDER BY order_no`,
      )
      .all(params) as {
      orderNo: string;
      merchantOrderNo: string;
      cardId: string | null;
      offeringId: string;
      amountMinor: number;
      currency: string;
      minMinor: number;
      maxMinor: number;
    }[];
    const findings = rows.map((o) => {
      const bound = o.amountMinor > o.maxMinor ? o.maxMinor : o.minMinor;
      const money = (minor: number) => moneyText(minor, o.currency);
      return makeFinding(CODE, merchantId, {
        orderNo: o.orderNo,
        merchantOrderNo: o.merchantOrderNo,
        cardId: o.cardId,
        currency: o.currency,
        expected: money(bound),
        actual: money(o.amountMinor),
        delta: differenceText(o.amountMinor, bound, o.currency),
        detail: `ISSUE of ${money(o.amountMinor)} ${o.currency} outside offering ${o.offeringId}'s [${money(o.minMinor)}, ${money(o.maxMinor)}]`,
      });
    });
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'order_no' });
    return new CoverageTally()
      .addGrouped('orders', counts, 'orderNo')
      .outcome(CODE, merchantId, findings);
  },
};
