import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { reasonCounts } from '../reason-counts.js';
import { skippedTransactionIds } from '../skipped-transaction-ids.js';
import { CARD_TRANSACTIONS_TABLE } from '../working-tables.js';

const CODE = 'ORPHAN_TRANSACTION';

/**
 * A card is gone when `/cards/info` answered 404 for it: a card no list showed, or one an
 * earlier list showed but a later run's list lacked (the answer is newer than the card's read).
 */
const GONE = "m.answer = 'not_found' AND (c.card_id IS NULL OR m.checked_at >= c.observed_at)";

/**
 * The merchant's transactions by card and currency (the working table `cardTransactions`), each
 * group counting its `transactions`: the findings are the transactions of the orphan groups.
 */
const CANDIDATES = `candidates AS (
  SELECT s.card_id, s.currency, s.transactions, m.answer,
         CASE
           WHEN ${GONE} THEN NULL
           WHEN c.card_id IS NOT NULL THEN NULL
           WHEN m.answer IS NULL THEN 'card not listed and not yet asked for (/cards/info)'
           WHEN m.answer = 'found' THEN 'card found by /cards/info but not mirrored as the merchant''s'
         END AS reason,
         ${GONE} AS orphan
  FROM ${CARD_TRANSACTIONS_TABLE} s
  LEFT JOIN cards c ON c.card_id = s.card_id AND c.merchant_id = @merchantId
  LEFT JOIN missing_cards m ON m.card_id = s.card_id AND m.merchant_id = @merchantId
)`;

/**
 * ORPHAN_TRANSACTION: a transaction whose card is not one of the merchant's cards, and
 * `/cards/info` answered 404 for it (the sync records that answer in `missing_cards`).
 */
export const orphanTransaction: Check = {
  code: CODE,
  severity: 'error',
  description: "a transaction whose card is not one of the merchant's cards (/cards/info: 404)",
  uses: ['cardTransactions'],
  run({ db, merchantId }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT t.transaction_id AS transactionId, t.card_id AS cardId, t.trade_no AS tradeNo,
                t.currency
         FROM candidates s CROSS JOIN transactions t
         WHERE s.reason IS NULL AND s.orphan
           AND t.card_id = s.card_id AND t.merchant_id = @merchantId AND t.currency = s.currency
         ORDER BY t.transaction_id`,
      )
      .all(params) as {
      transactionId: string;
      cardId: string;
      tradeNo: string;
      currency: string;
    }[];
    const findings = rows.map((t) =>
      makeFinding(CODE, merchantId, {
        transactionId: t.transactionId,
        cardId: t.cardId,
        tradeNo: t.tradeNo,
        currency: t.currency,
        detail: `card ${t.cardId} is not one of the merchant's cards: /cards/info answered 404`,
      }),
    );
    const groups = reasonCounts(db, CANDIDATES, params, { weight: 'transactions' });
    // A finding is identified by its transaction, so a skipped group is left open by its
    // transactions' ids.
    const skipped = groups.some((g) => g.reason !== null)
      ? skippedTransactionIds(db, CANDIDATES, params, CODE)
      : [];
    return new CoverageTally()
      .addGrouped('transactions', groups)
      .leaveOpen('transactionId', skipped)
      .outcome(CODE, merchantId, findings);
  },
};
