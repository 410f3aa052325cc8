import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { type Finding, makeFinding } from '../finding.js';
import { reasonCounts } from '../reason-counts.js';
import { skippedTransactionIds } from '../skipped-transaction-ids.js';
import { CARD_TRANSACTIONS_TABLE } from '../working-tables.js';

const CODE = 'CURRENCY_MISMATCH';

/**
 * The merchant's transactions by card and currency (the working table `cardTransactions`), each
 * group counting its `transactions`: the findings are the transactions of the groups whose
 * currency differs from their card's.
 */
const TRANSACTIONS = `candidates AS (
  SELECT s.card_id, s.currency, s.transactions, c.currency AS card_currency,
         CASE WHEN c.card_id IS NULL THEN 'card not among the merchant''s cards' END AS reason
  FROM ${CARD_TRANSACTIONS_TABLE} s
  LEFT JOIN cards c ON c.card_id = s.card_id AND c.merchant_id = @merchantId
)`;

const CARDS = `candidates AS (
  SELECT c.card_id, c.currency, c.card_offering_id, o.currency AS offering_currency,
         CASE WHEN o.id IS NULL THEN 'offering not mirrored' END AS reason
  FROM cards c LEFT JOIN offerings o ON o.id = c.card_offering_id
  WHERE c.merchant_id = @merchantId
)`;

/**
 * CURRENCY_MISMATCH: a transaction in another currency than its card (identified by the
 * transaction), or a card in another currency than its offering (identified by the card).
 */
export const currencyMismatch: Check = {
  code: CODE,
  severity: 'error',
  description: "a transaction's currency differs from its card's, or a card's from its offering's",
  uses: ['cardTransactions'],
  run({ db, merchantId }: CheckContext) {
    const params = { merchantId };
    const findings: Finding[] = [];
    const transactions = db
      .prepare(
        `WITH ${TRANSACTIONS}
         SELECT t.transaction_id AS transactionId, t.card_id AS cardId, t.trade_no AS tradeNo,
                t.currency, s.card_currency AS cardCurrency
         FROM candidates s CROSS JOIN transactions t
         WHERE s.reason IS NULL AND s.currency <> s.card_currency
           AND t.card_id = s.card_id AND t.merchant_id = @merchantId AND t.currency = s.currency
         ORDER BY t.transaction_id`,
      )
      .all(params) as {
      transactionId: string;
      cardId: string;
      tradeNo: string;
      currency: string;
      cardCurrency: string;
    }[];
    for (const t of transactions)
      findings.push(
        makeFinding(CODE, merchantId, {
          transactionId: t.transactionId,
          cardId: t.cardId,
          tradeNo: t.tradeNo,
          currency: t.cardCurrency,
          expected: t.cardCurrency,
          actual: t.currency,
          detail: `transaction in ${t.currency} on a ${t.cardCurrency} card`,
        }),
      );
    const cards = db
      .prepare(
        `WITH ${CARDS}
         SELECT card_id AS cardId, currency, card_offering_id AS offeringId,
                offering_currency AS offeringCurrency
         FROM candidates WHERE reason IS NULL AND currency <> offering_currency
         ORDER BY card_id`,
      )
      .all(params) as {
      cardId: string;
      currency: string;
      offeringId: string;
      offeringCurrency: string;
    }[];
    for (const c of cards)
      findings.push(
        makeFinding(CODE, merchantId, {
          cardId: c.cardId,
          currency: c.currency,
          expected: c.offeringCurrency,
          actual: c.currency,
          detail: `card in ${c.currency}, its offering ${c.offeringId} in ${c.offeringCurrency}`,
        }),
      );
    const tally = new CoverageTally();
    const groups = reasonCounts(db, TRANSACTIONS, params, { weight: 'transactions' });
    tally.addGrouped('transactions', groups);
    // Each finding is left open by its own identity: a skipped group by its transactions, a
    // skipped card by the card, which keeps open no finding about one of its transactions.
    if (groups.some((g) => g.reason !== null))
      tally.leaveOpen('transactionId', skippedTransactionIds(db, TRANSACTIONS, params, CODE));
    tally.addGrouped('cards', reasonCounts(db, CARDS, params, { subject: 'card_id' }), 'cardId');
    return tally.outcome(CODE, merchantId, findings);
  },
};
