import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { moneyText } from '../money-text.js';

const CODE = 'OVER_REFUND';

/**
 * `trades`: per card and `tradeNo`, the non-DECLINED PURCHASE amounts against the non-DECLINED
 * REFUND and REVERSAL amounts, for trades with at least one refund or reversal.
 */
const TRADES = `trades AS (
  SELECT card_id, trade_no, max(currency) AS currency,
         coalesce(sum(CASE WHEN type = 'PURCHASE' THEN amount_minor END), 0) AS purchased,
         coalesce(sum(CASE WHEN type <> 'PURCHASE' THEN amount_minor END), 0) AS returned,
         sum(type <> 'PURCHASE') AS returns,
         sum(amount_minor IS NULL) AS unusable
  FROM transactions
  WHERE merchant_id = @merchantId AND status <> 'DECLINED'
    AND type IN ('PURCHASE', 'REFUND', 'REVERSAL')
  GROUP BY card_id, trade_no
  HAVING returns > 0
)`;

/**
 * OVER_REFUND: for a card and `tradeNo`, the non-DECLINED REFUND and REVERSAL amounts exceed
 * the non-DECLINED PURCHASE amounts (refunds split over several rows are summed).
 */
export const overRefund: Check = {
  code: CODE,
  severity: 'error',
  description: 'refunds and reversals of a card and tradeNo exceed its purchases',
  run({ db, merchantId, settings }: CheckContext) {
    const tolerance = settings.tolerances[CODE];
    const rows = db
      .prepare(
        `WITH ${TRADES}
         SELECT card_id AS cardId, trade_no AS tradeNo, currency, purchased, returned, returns
         FROM trades WHERE unusable = 0 AND returned - purchased > @tolerance
         ORDER BY card_id, trade_no`,
      )
      .all({ merchantId, tolerance }) as {
      cardId: string;
      tradeNo: string;
      currency: string;
      purchased: number;
      returned: number;
      returns: number;
    }[];
    const findings = rows.map((t) => {
      const purchased = moneyText(t.purchased, t.currency);
      const returned = moneyText(t.returned, t.currency);
      return makeFinding(CODE, merchantId, {
        cardId: t.cardId,
        tradeNo: t.tradeNo,
        currency: t.currency,
        expected: purchased,
        actual: returned,
        delta: moneyText(t.returned - t.purchased, t.currency),
        detail: `${t.returns} refund(s)/reversal(s) return ${returned ?? t.returned} ${t.currency}, purchases were ${purchased ?? t.purchased}`,
      });
    });
    const counts = db
      .prepare(
        `WITH ${TRADES}
         SELECT coalesce(sum(CASE WHEN unusable = 0 THEN returns END), 0) AS examined,
                coalesce(sum(CASE WHEN unusable > 0 THEN returns END), 0) AS skipped
         FROM trades`,
      )
      .get({ merchantId }) as { examined: number; skipped: number };
    const coverage = new CoverageTally()
      .examine('transactions', counts.examined)
      .skip(
        'transactions',
        'a purchase, refund or reversal of the trade is too precise for its currency (PRECISION_VIOLATION)',
        counts.skipped,
      )
      .result(CODE, merchantId);
    return { findings, coverage };
  },
};
