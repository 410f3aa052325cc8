import { Database } from '../sqlite-driver.js';

/** Rows the mirror holds for one merchant. */
export interface MirroredRows {
  readonly cards: number;
  readonly transactions: number;
}

/**
 * Cards and transactions per merchant id in the mirror `file`, read over a read-only
 * connection, as an analyst would open it.
 */
export function mirroredRows(file: string): Map<string, MirroredRows> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db
      .prepare(
        `SELECT merchant_id AS merchantId,
                sum(kind = 'card') AS cards, sum(kind = 'transaction') AS transactions
         FROM (SELECT merchant_id, 'card' AS kind FROM cards
               UNION ALL SELECT merchant_id, 'transaction' FROM transactions)
         GROUP BY merchant_id`,
      )
      .all() as { merchantId: string; cards: number; transactions: number }[];
    return new Map(
      rows.map((r) => [r.merchantId, { cards: r.cards, transactions: r.transactions }]),
    );
  } finally {
    db.close();
  }
}
