import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { JOURNAL_CTE, nextTermsOn, termsVersionSql } from '../journal-sql.js';
import { differenceText, moneyText } from '../money-text.js';
import { reasonCounts } from '../reason-counts.js';
import { OUTCOME_REASONS } from './outcome-reasons.js';

const CODE = 'ISSUANCE_FEE_MISMATCH';

const CANDIDATES = `${JOURNAL_CTE},
candidates AS (
  SELECT j.order_no, j.merchant_order_no, j.fee_id, j.fee_card_id, j.fee_amount,
         j.fee_amount_minor, j.fee_currency, j.offering_id, v.issuance_fee, v.issuance_fee_minor,
         CASE WHEN w.currency IS j.fee_currency THEN w.issuance_fee_minor END AS next_fee_minor,
         CASE
           ${OUTCOME_REASONS}
           WHEN v.id IS NULL THEN 'offering not mirrored'
           -- Minor units of two currencies: 200 JPY is no 2.00 USD, 2.000 KWD no 20.00 USD.
           WHEN j.fee_currency IS NOT v.currency THEN 'FEE record currency differs from the offering''s'
           WHEN v.issuance_fee_minor IS NULL THEN 'offering issuance fee too precise for its currency'
         END AS reason
  FROM journal j
  LEFT JOIN offering_versions v
    ON v.id = j.offering_id AND v.version = ${termsVersionSql('j.offering_id', 'j.submitted_at')}
  LEFT JOIN offering_versions w ON ${nextTermsOn('w', 'v', 'j.submitted_at')}
  WHERE j.kind = 'ISSUE'
)`;

/**
 * ISSUANCE_FEE_MISMATCH: the COMPLETED FEE record of a journal ISSUE order charges another
 * amount than the offering's `issuanceFee` (the terms in force when it was submitted, or the
 * next terms when they may already have been: {@link nextTermsOn}).
 */
export const issuanceFeeMismatch: Check = {
  code: CODE,
  severity: 'error',
  description: "the COMPLETED FEE of an ISSUE order differs from the offering's issuanceFee",
  uses: ['journal'],
  run({ db, merchantId, settings }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT order_no AS orderNo, merchant_order_no AS merchantOrderNo, fee_id AS feeId,
                fee_card_id AS cardId, fee_amount_minor AS charged, fee_currency AS currency,
                offering_id AS offeringId, issuance_fee_minor AS due
         FROM candidates
         WHERE reason IS NULL AND abs(fee_amount_minor - issuance_fee_minor) > @tolerance
           AND (next_fee_minor IS NULL OR abs(fee_amount_minor - next_fee_minor) > @tolerance)
         ORDER BY order_no`,
      )
      .all({ ...params, tolerance: settings.tolerances[CODE] }) as {
      orderNo: string;
      merchantOrderNo: string;
      feeId: string;
      cardId: string;
      charged: number;
      currency: string;
      offeringId: string;
      due: number;
    }[];
    const findings = rows.map((o) =>
      makeFinding(CODE, merchantId, {
        orderNo: o.orderNo,
        merchantOrderNo: o.merchantOrderNo,
        transactionId: o.feeId,
        cardId: o.cardId,
        currency: o.currency,
        expected: moneyText(o.due, o.currency),
        actual: moneyText(o.charged, o.currency),
        delta: differenceText(o.charged, o.due, o.currency),
        detail: `issuance fee ${moneyText(o.charged, o.currency)} charged, offering ${o.offeringId} says ${moneyText(o.due, o.currency)}`,
      }),
    );
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'order_no' });
    return new CoverageTally()
      .addGrouped('orders', counts, 'orderNo')
      .outcome(CODE, merchantId, findings);
  },
};
