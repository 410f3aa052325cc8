import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { reasonCounts } from '../reason-counts.js';

const CODE = 'ORPHAN_TRANSACTION';

const CANDIDATES = `candidates AS (
  SELECT t.transaction_id, t.card_id, t.trade_no, t.currency, m.answer,
         CASE
           WHEN c.card_id IS NOT NULL THEN NULL
           WHEN m.answer IS NULL THEN 'card not listed and not yet asked for (/cards/info)'
           WHEN m.answer = 'found' THEN 'card found by /cards/info but not mirrored as the merchant''s'
         END AS reason,
         c.card_id IS NULL AND m.answer = 'not_found' AS orphan
  FROM transactions t
  LEFT JOIN cards c ON c.card_id = t.card_id AND c.merchant_id = t.merchant_id
  LEFT JOIN missing_cards m ON m.card_id = t.card_id AND m.merchant_id = t.merchant_id
  WHERE t.merchant_id = @merchantId
)`;

/**
 * ORPHAN_TRANSACTION: a transaction whose card is not one of the merchant's cards, and
 * `/cards/info` answered 404 for it (the sync records that answer in `missing_cards`).
 */
export const orphanTransaction: Check = {
  code: CODE,
  severity: 'error',
  description: "a transaction whose card is not one of the merchant's cards (/cards/info: 404)",
  run({ db, merchantId }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT transaction_id AS transactionId, card_id AS cardId, trade_no AS tradeNo, currency
         FROM candidates WHERE reason IS NULL AND orphan ORDER BY transaction_id`,
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
    const coverage = new CoverageTally()
      .addGrouped('transactions', reasonCounts(db, CANDIDATES, params))
      .result(CODE, merchantId);
    return { findings, coverage };
  },
};
