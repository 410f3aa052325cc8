import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/**
 * The ids of the transactions in the skipped groups of the CTE `candidates` (the last of
 * `withClause`: one row per `card_id` and `currency` of the merchant's transactions, its `reason`
 * not NULL when the group is skipped). A check that judges such groups but identifies its
 * findings by transaction leaves these open: by the transaction, not its card.
 */
export function skippedTransactionIds(
  db: SqliteDatabase,
  withClause: string,
  params: { readonly merchantId: string },
): string[] {
  return db
    .prepare(
      `WITH ${withClause}
       SELECT t.transaction_id FROM candidates s CROSS JOIN transactions t
       WHERE s.reason IS NOT NULL
         AND t.card_id = s.card_id AND t.merchant_id = @merchantId AND t.currency = s.currency`,
    )
    .pluck()
    .all(params) as string[];
}
