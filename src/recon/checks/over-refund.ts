import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { exactSum, exactSumValueSql } from '../exact-sum-sql.js';
import { makeFinding } from '../finding.js';
import { moneyText } from '../money-text.js';
import { TRADES_TABLE } from '../working-tables.js';

const CODE = 'OVER_REFUND';

/**
 * OVER_REFUND: for a card and `tradeNo`, the non-DECLINED REFUND and REVERSAL amounts exceed
 * the non-DECLINED PURCHASE amounts (refunds split over several rows are summed). A trade whose
 * rows are in more than one currency is left out: their minor units do not add up. The trades
 * with a refund or reversal are the working table `trades`.
 */
export const overRefund: Check = {
  code: CODE,
  severity: 'error',
  description: 'refunds and reversals of a card and tradeNo exceed its purchases',
  uses: ['trades'],
  run({ db, merchantId, settings }: CheckContext) {
    const tolerance = settings.tolerances[CODE];
    // Sums of amounts come back as bigints: past 2^53 minor units a number would lose cents,
    // and past 2^63 SQLite's own integers (each sum then comes in parts: exact-sum-sql.ts).
    const rows = db
      .prepare(
        `SELECT card_id AS cardId, trade_no AS tradeNo, currency, currencies,
                ${exactSumValueSql('purchased_high', 'purchased_low', 'purchased')},
                ${exactSumValueSql('returned_high', 'returned_low', 'returned')}, returns, unusable
         FROM ${TRADES_TABLE} WHERE returns > 0 ORDER BY card_id, trade_no`,
      )
      .safeIntegers(true)
      .all({ merchantId }) as {
      cardId: string;
      tradeNo: string;
      currency: string;
      currencies: bigint;
      purchased: bigint | null;
      purchased_high: bigint | null;
      purchased_low: bigint | null;
      returned: bigint | null;
      returned_high: bigint | null;
      returned_low: bigint | null;
      returns: bigint;
      unusable: bigint;
    }[];
    const trades = rows.map((t) => ({
      cardId: t.cardId,
      tradeNo: t.tradeNo,
      currency: t.currency,
      currencies: t.currencies,
      purchased: t.purchased ?? exactSum(t.purchased_high, t.purchased_low) ?? 0n,
      returned: t.returned ?? exactSum(t.returned_high, t.returned_low) ?? 0n,
      returns: t.returns,
      unusable: t.unusable,
    }));
    const tooPrecise = trades.filter((t) => t.unusable !== 0n);
    // Minor units of two currencies do not add up: 1500 JPY returned is not more than 10.00 USD.
    const mixed = trades.filter((t) => t.unusable === 0n && t.currencies > 1n);
    const usable = trades.filter((t) => t.unusable === 0n && t.currencies <= 1n);
    const findings = usable
      .filter((t) => t.returned - t.purchased > BigInt(tolerance))
      .map((t) => {
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
    const returns = (rows: readonly { returns: bigint }[]) =>
      Number(rows.reduce((sum, t) => sum + t.returns, 0n));
    // A skipped trade is left open by its identity, card and tradeNo: a finding about another
    // trade of the card, or about another card's trade of the same tradeNo, can resolve.
    return new CoverageTally()
      .examine('transactions', returns(usable))
      .skip(
        'transactions',
        'a purchase, refund or reversal of the trade is too precise for its currency (PRECISION_VIOLATION)',
        returns(tooPrecise),
      )
      .skip(
        'transactions',
        'a purchase, refund or reversal of the trade is in another currency than the others (CURRENCY_MISMATCH)',
        returns(mixed),
      )
      .leaveOpen(
        ['cardId', 'tradeNo'],
        [...tooPrecise, ...mixed].map((t) => [t.cardId, t.tradeNo]),
      )
      .outcome(CODE, merchantId, findings);
  },
};
