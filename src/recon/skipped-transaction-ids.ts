import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { CheckCode } from './check-code.js';

/**
 * The ids of the transactions in the skipped groups of the CTE `candidates` (the last of
 * `withClause`: one row per `card_id` and `currency` of the merchant's transactions, its `reason`
 * not NULL when the group is skipped) that an open finding of `check` names. A check that judges
 * such groups but identifies its findings by transaction leaves these open: by the transaction,
 * not its card.
 *
 * Only the open findings' transactions are listed, since no other finding can be kept open: a
 * mirror whose card list is missing skips every transaction, and listing them all held 200 MiB
 * per check at 1M transactions.
 */
export function skippedTransactionIds(
  db: SqliteDatabase,
  withClause: string,
  params: { readonly merchantId: string },
  check: CheckCode,
): string[] {
  return db
    .prepare(
      `WITH ${withClause}
       SELECT t.transaction_id
       FROM findings f
       JOIN transactions t ON t.transaction_id = f.transaction_id
       JOIN candidates s ON s.card_id = t.card_id AND s.currency = t.currency
       WHERE f.merchant_id = @merchantId AND f.check_code = @check AND f.state <> 'resolved'
         AND t.merchant_id = @merchantId AND s.reason IS NOT NULL`,
    )
    .pluck()
    .all({ ...params, check }) as string[];
}
