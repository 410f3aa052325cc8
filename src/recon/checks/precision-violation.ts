import { isKnownCurrency } from '../../money/currency.js';
import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { type Finding, makeFinding } from '../finding.js';

const CODE = 'PRECISION_VIOLATION';

/** Why a money text has no minor units. */
function why(text: string, currency: string): string {
  return isKnownCurrency(currency)
    ? `${text} has more fractional digits than ${currency} allows`
    : `${text} is in ${currency}, a currency whose exponent is unknown`;
}

/**
 * PRECISION_VIOLATION: a transaction's amount or fee, or a card's balance, with more fractional
 * digits than its currency allows. The mirror keeps such text with a NULL `*_minor` column, and
 * every other check that needs the amount leaves the record out (its coverage says so).
 */
export const precisionViolation: Check = {
  code: CODE,
  severity: 'warning',
  description: 'an amount, fee or balance with more fractional digits than its currency allows',
  run({ db, merchantId }: CheckContext) {
    const findings: Finding[] = [];
    const transactions = db
      .prepare(
        `SELECT transaction_id AS transactionId, card_id AS cardId, trade_no AS tradeNo, amount,
                amount_minor AS amountMinor, fee, fee_minor AS feeMinor, currency
         FROM transactions NOT INDEXED
         WHERE merchant_id = ? AND (amount_minor IS NULL OR fee_minor IS NULL)
         ORDER BY transaction_id`,
      )
      .all(merchantId) as {
      transactionId: string;
      cardId: string;
      tradeNo: string;
      amount: string;
      amountMinor: number | null;
      fee: string;
      feeMinor: number | null;
      currency: string;
    }[];
    for (const t of transactions) {
      const texts = [
        ...(t.amountMinor === null ? [`amount ${why(t.amount, t.currency)}`] : []),
        ...(t.feeMinor === null ? [`fee ${why(t.fee, t.currency)}`] : []),
      ];
      findings.push(
        makeFinding(CODE, merchantId, {
          transactionId: t.transactionId,
          cardId: t.cardId,
          tradeNo: t.tradeNo,
          currency: t.currency,
          actual: t.amountMinor === null ? t.amount : t.fee,
          detail: texts.join('; '),
        }),
      );
    }
    const cards = db
      .prepare(
        `SELECT card_id AS cardId, balance, currency FROM cards
         WHERE merchant_id = ? AND balance_minor IS NULL ORDER BY card_id`,
      )
      .all(merchantId) as { cardId: string; balance: string; currency: string }[];
    for (const c of cards) {
      findings.push(
        makeFinding(CODE, merchantId, {
          cardId: c.cardId,
          currency: c.currency,
          actual: c.balance,
          detail: `balance ${why(c.balance, c.currency)}`,
        }),
      );
    }
    const counts = db
      .prepare(
        `SELECT (SELECT count(*) FROM transactions WHERE merchant_id = @merchantId) AS transactions,
                (SELECT count(*) FROM cards WHERE merchant_id = @merchantId) AS cards`,
      )
      .get({ merchantId }) as { transactions: number; cards: number };
    const coverage = new CoverageTally()
      .examine('transactions', counts.transactions)
      .examine('cards', counts.cards)
      .result(CODE, merchantId);
    return { findings, coverage };
  },
};
