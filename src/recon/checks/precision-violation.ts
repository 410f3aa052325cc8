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

/** A card offering's current terms that are money, as text and minor units (null: too precise). */
interface OfferingTerms {
  offeringId: string;
  version: number;
  currency: string;
  minLoadAmount: string;
  minLoadMinor: number | null;
  maxLoadAmount: string;
  maxLoadMinor: number | null;
  issuanceFee: string;
  issuanceFeeMinor: number | null;
}

/**
 * PRECISION_VIOLATION: a transaction's amount or fee, a card's balance, a journal order's amount,
 * a merchant balance snapshot, or a card offering's current minLoadAmount, maxLoadAmount or
 * issuanceFee with more fractional digits than its currency allows. The mirror keeps such text
 * with a NULL `*_minor` column, and every other check that needs the amount leaves the record
 * out (its coverage says so).
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
    const orders = db
      .prepare(
        `SELECT merchant_order_no AS merchantOrderNo, nullif(order_no, '') AS orderNo,
                card_id AS cardId, kind, amount, currency
         FROM orders
         WHERE merchant_id = ? AND amount IS NOT NULL AND amount <> '' AND currency IS NOT NULL
           AND amount_minor IS NULL
         ORDER BY merchant_order_no`,
      )
      .all(merchantId) as {
      merchantOrderNo: string;
      orderNo: string | null;
      cardId: string | null;
      kind: string;
      amount: string;
      currency: string;
    }[];
    for (const o of orders) {
      findings.push(
        makeFinding(CODE, merchantId, {
          merchantOrderNo: o.merchantOrderNo,
          orderNo: o.orderNo,
          cardId: o.cardId,
          currency: o.currency,
          actual: o.amount,
          detail: `journal ${o.kind} amount ${why(o.amount, o.currency)}`,
        }),
      );
    }
    const snapshots = db
      .prepare(
        `SELECT observed_at AS observedAt, balance, currency FROM merchant_balances
         WHERE merchant_id = ? AND balance_minor IS NULL ORDER BY observed_at`,
      )
      .all(merchantId) as { observedAt: string; balance: string; currency: string }[];
    for (const b of snapshots) {
      findings.push(
        makeFinding(CODE, merchantId, {
          snapshotAt: b.observedAt,
          currency: b.currency,
          actual: b.balance,
          detail: `merchant balance read at ${b.observedAt} ${why(b.balance, b.currency)}`,
        }),
      );
    }
    const offerings = db
      .prepare(
        `SELECT id AS offeringId, version, currency, min_load_amount AS minLoadAmount,
                min_load_amount_minor AS minLoadMinor, max_load_amount AS maxLoadAmount,
                max_load_amount_minor AS maxLoadMinor, issuance_fee AS issuanceFee,
                issuance_fee_minor AS issuanceFeeMinor
         FROM offerings
         WHERE merchant_id = ? AND (min_load_amount_minor IS NULL
           OR max_load_amount_minor IS NULL OR issuance_fee_minor IS NULL)
         ORDER BY id`,
      )
      .all(merchantId) as OfferingTerms[];
    for (const o of offerings) {
      const terms = [
        ['minLoadAmount', o.minLoadAmount, o.minLoadMinor],
        ['maxLoadAmount', o.maxLoadAmount, o.maxLoadMinor],
        ['issuanceFee', o.issuanceFee, o.issuanceFeeMinor],
      ] as const;
      const bad = terms.filter(([, , minor]) => minor === null);
      findings.push(
        makeFinding(CODE, merchantId, {
          offeringId: o.offeringId,
          currency: o.currency,
          actual: bad[0]?.[1] ?? null,
          detail: `offering ${o.offeringId} (terms version ${o.version}): ${bad
            .map(([name, text]) => `${name} ${why(text, o.currency)}`)
            .join('; ')}`,
        }),
      );
    }
    const counts = db
      .prepare(
        `SELECT (SELECT count(*) FROM transactions WHERE merchant_id = @merchantId) AS transactions,
                (SELECT count(*) FROM cards WHERE merchant_id = @merchantId) AS cards,
                (SELECT count(*) FROM orders WHERE merchant_id = @merchantId) AS orders,
                (SELECT count(*) FROM offerings WHERE merchant_id = @merchantId) AS offerings`,
      )
      .get({ merchantId }) as {
      transactions: number;
      cards: number;
      orders: number;
      offerings: number;
    };
    const coverage = new CoverageTally()
      .examine('transactions', counts.transactions)
      .examine('cards', counts.cards)
      .examine('orders', counts.orders)
      .examine('offerings', counts.offerings)
      .result(CODE, merchantId);
    return { findings, coverage };
  },
};
