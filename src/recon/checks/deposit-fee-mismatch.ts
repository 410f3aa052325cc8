import { percentOf } from '../../money/percent.js';
import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { type Finding, makeFinding } from '../finding.js';
import { JOURNAL_CTE, nextTermsOn, termsVersionSql } from '../journal-sql.js';
import { differenceText, moneyText } from '../money-text.js';
import { OUTCOME_REASONS } from './outcome-reasons.js';

const CODE = 'DEPOSIT_FEE_MISMATCH';

const CANDIDATES = `${JOURNAL_CTE},
candidates AS (
  SELECT j.order_no, j.merchant_order_no, j.fee_id, j.fee_card_id, j.fee_amount_minor,
         j.fee_currency, j.amount, j.amount_minor, j.currency, c.card_offering_id,
         v.deposit_fee_percent, w.deposit_fee_percent AS next_percent,
         CASE
           ${OUTCOME_REASONS}
           WHEN j.amount_minor IS NULL THEN 'amount missing or too precise for its currency'
           -- Minor units of two currencies: the fee due would be in the wrong ones.
           WHEN j.currency IS NOT j.fee_currency THEN 'journal currency differs from the FEE record''s'
           WHEN c.card_id IS NULL THEN 'card not mirrored'
           WHEN v.id IS NULL THEN 'offering not mirrored'
         END AS reason
  FROM journal j
  LEFT JOIN cards c ON c.card_id = j.fee_card_id AND c.merchant_id = @merchantId
  LEFT JOIN offering_versions v
    ON v.id = c.card_offering_id
   AND v.version = ${termsVersionSql('c.card_offering_id', 'j.submitted_at')}
  LEFT JOIN offering_versions w ON ${nextTermsOn('w', 'v', 'j.submitted_at')}
  WHERE j.kind = 'DEPOSIT'
)`;

interface Candidate {
  orderNo: string | null;
  merchantOrderNo: string;
  feeId: string | null;
  cardId: string | null;
  charged: number | null;
  currency: string | null;
  amount: string | null;
  amountMinor: number | null;
  offeringId: string | null;
  percent: string | null;
  nextPercent: string | null;
  reason: string | null;
}

/**
 * DEPOSIT_FEE_MISMATCH: the COMPLETED FEE record of a journal DEPOSIT order charges another
 * amount than `amount × depositFeePercent / 100` of its card's offering (the terms in force when
 * it was submitted, or the next when they may already have been), rounded to the
 * currency's exponent (half-up, away from zero, unless configured otherwise). The rounding is
 * done exactly, on integers, by `src/money` (the one owner of rounding), over streamed rows.
 */
export const depositFeeMismatch: Check = {
  code: CODE,
  severity: 'error',
  description:
    'the COMPLETED FEE of a DEPOSIT order differs from amount × depositFeePercent / 100, rounded half-up',
  uses: ['journal'],
  run({ db, merchantId, settings }: CheckContext) {
    const tolerance = settings.tolerances[CODE];
    const tally = new CoverageTally().examine('orders', 0);
    const findings: Finding[] = [];
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT order_no AS orderNo, merchant_order_no AS merchantOrderNo, fee_id AS feeId,
                fee_card_id AS cardId, fee_amount_minor AS charged,
                coalesce(fee_currency, currency) AS currency, amount, amount_minor AS amountMinor,
                card_offering_id AS offeringId, deposit_fee_percent AS percent,
                next_percent AS nextPercent, reason
         FROM candidates`,
      )
      .iterate({ merchantId }) as IterableIterator<Candidate>;
    for (const row of rows) {
      if (row.reason !== null) {
        tally.skip('orders', row.reason).leaveOpen('orderNo', row.orderNo ? [row.orderNo] : []);
        continue;
      }
      const due = dueFee(row, row.percent, settings.depositFeeRounding);
      if (due === undefined) {
        tally
          .skip('orders', 'offering deposit fee percent unreadable')
          .leaveOpen('orderNo', row.orderNo ? [row.orderNo] : []);
        continue;
      }
      tally.examine('orders');
      const charged = row.charged as number;
      if (Math.abs(charged - due) <= tolerance) continue;
      // The next terms may already have been in force when it was submitted (nextTermsOn).
      const nextDue = dueFee(row, row.nextPercent, settings.depositFeeRounding);
      if (nextDue !== undefined && Math.abs(charged - nextDue) <= tolerance) continue;
      findings.push(
        makeFinding(CODE, merchantId, {
          orderNo: row.orderNo,
          merchantOrderNo: row.merchantOrderNo,
          transactionId: row.feeId,
          cardId: row.cardId,
          currency: row.currency,
          expected: moneyText(due, row.currency),
          actual: moneyText(charged, row.currency),
          delta: differenceText(charged, due, row.currency),
          detail: `deposit of ${moneyText(row.amountMinor, row.currency)} ${row.currency} at ${row.percent} % (offering ${row.offeringId}): ${moneyText(due, row.currency)} due, ${moneyText(charged, row.currency)} charged`,
        }),
      );
    }
    return tally.outcome(CODE, merchantId, findings);
  },
};

/** The fee due on `row`'s deposit at `percent`; undefined when there is none or it is unreadable. */
function dueFee(
  row: Candidate,
  percent: string | null,
  mode: CheckContext['settings']['depositFeeRounding'],
) {
  if (percent === null) return undefined;
  try {
    return percentOf(row.amountMinor as number, percent, mode);
  } catch {
    return undefined;
  }
}
