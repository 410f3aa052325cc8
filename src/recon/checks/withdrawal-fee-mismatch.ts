import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { JOURNAL_CTE } from '../journal-sql.js';
import { amountText, moneyText } from '../money-text.js';
import { reasonCounts } from '../reason-counts.js';
import { OUTCOME_REASONS } from './outcome-reasons.js';

const CODE = 'WITHDRAWAL_FEE_MISMATCH';

const CANDIDATES = `${JOURNAL_CTE},
candidates AS (
  SELECT j.order_no, j.merchant_order_no, j.fee_id, j.fee_card_id, j.fee_amount_minor,
         j.fee_currency, j.amount, j.amount_minor, j.currency,
         CASE ${OUTCOME_REASONS} END AS reason
  FROM journal j WHERE j.kind = 'WITHDRAW'
)`;

/** WITHDRAWAL_FEE_MISMATCH: the COMPLETED FEE record of a journal WITHDRAW order is not 0. */
export const withdrawalFeeMismatch: Check = {
  code: CODE,
  severity: 'error',
  description: 'the COMPLETED FEE of a WITHDRAW order is not 0',
  uses: ['journal'],
  run({ db, merchantId, settings }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT order_no AS orderNo, merchant_order_no AS merchantOrderNo, fee_id AS feeId,
                fee_card_id AS cardId, fee_amount_minor AS charged,
                coalesce(fee_currency, currency) AS currency, amount, amount_minor AS amountMinor,
                currency AS amountCurrency
         FROM candidates WHERE reason IS NULL AND abs(fee_amount_minor) > @tolerance
         ORDER BY order_no`,
      )
      .all({ ...params, tolerance: settings.tolerances[CODE] }) as {
      orderNo: string;
      merchantOrderNo: string;
      feeId: string;
      cardId: string;
      charged: number;
      currency: string;
      /** The journal's: a WITHDRAW always has one. */
      amount: string;
      amountMinor: number | null;
      amountCurrency: string;
    }[];
    const findings = rows.map((o) =>
      makeFinding(CODE, merchantId, {
        orderNo: o.orderNo,
        merchantOrderNo: o.merchantOrderNo,
        transactionId: o.feeId,
        cardId: o.cardId,
        currency: o.currency,
        expected: moneyText(0, o.currency),
        actual: moneyText(o.charged, o.currency),
        delta: moneyText(o.charged, o.currency),
        detail: `withdrawal of ${amountText(o.amountMinor, o.amount, o.amountCurrency)} ${o.amountCurrency} charged a fee of ${moneyText(o.charged, o.currency)}; ${moneyText(0, o.currency)} is due`,
      }),
    );
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'order_no' });
    return new CoverageTally()
      .addGrouped('orders', counts, 'orderNo')
      .outcome(CODE, merchantId, findings);
  },
};
