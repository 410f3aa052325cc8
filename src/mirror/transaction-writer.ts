import type { Statement } from 'better-sqlite3';
import type { Transaction } from '../contract/index.js';
import { minorColumn } from './minor-column.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** Which run wrote, and when the rows were read. */
export interface WriteContext {
  readonly merchantId: string;
  readonly runId: string;
  /** ISO time the rows were read from the upstream. */
  readonly observedAt: string;
}

/** What an upsert did. */
export interface WriteCounts {
  inserted: number;
  updated: number;
  unchanged: number;
}

const UPSERT = `
INSERT INTO transactions (transaction_id, merchant_id, card_id, trade_no, type, status, amount,
  amount_minor, fee, fee_minor, currency, merchant_name, created_at, first_seen_at, updated_at,
  updated_run_id)
VALUES (@transactionId, @merchantId, @cardId, @tradeNo, @type, @status, @amount, @amountMinor,
  @fee, @feeMinor, @currency, @merchantName, @createdAt, @observedAt, @observedAt, @runId)
ON CONFLICT (transaction_id) DO UPDATE SET
  merchant_id = excluded.merchant_id, card_id = excluded.card_id, trade_no = excluded.trade_no,
  type = excluded.type, status = excluded.status, amount = excluded.amount,
  amount_minor = excluded.amount_minor, fee = excluded.fee, fee_minor = excluded.fee_minor,
  currency = excluded.currency, merchant_name = excluded.merchant_name,
  created_at = excluded.created_at, updated_at = excluded.updated_at,
  updated_run_id = excluded.updated_run_id
WHERE transactions.status IS NOT excluded.status OR transactions.amount IS NOT excluded.amount
  OR transactions.fee IS NOT excluded.fee OR transactions.card_id IS NOT excluded.card_id
  OR transactions.trade_no IS NOT excluded.trade_no OR transactions.type IS NOT excluded.type
  OR transactions.currency IS NOT excluded.currency
  OR transactions.merchant_name IS NOT excluded.merchant_name
  OR transactions.created_at IS NOT excluded.created_at
  OR transactions.merchant_id IS NOT excluded.merchant_id
RETURNING 1 AS written`;

// Whether the row existed decides inserted against updated: `first_seen_at = updated_at` after
// the write cannot tell them apart when a window holds two versions of a row read at one instant.
const EXISTS = 'SELECT 1 FROM transactions WHERE transaction_id = ?';

/**
 * Upserts transactions with prepared statements (the hot path of a sync: kysely would compile
 * each statement again). Unchanged rows are not written at all, so re-reading a window costs
 * no disk; a status change is recorded in `transaction_status_changes` by a trigger.
 */
export class TransactionWriter {
  readonly #upsert: Statement;
  readonly #exists: Statement;

  constructor(db: SqliteDatabase) {
    this.#upsert = db.prepare(UPSERT);
    this.#exists = db.prepare(EXISTS).pluck();
  }

  /** Write `rows`; call inside the caller's transaction so a window commits whole. */
  write(rows: Iterable<Transaction>, context: WriteContext): WriteCounts {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    for (const row of rows) {
      const existed = this.#exists.get(row.transactionId) !== undefined;
      const result = this.#upsert.get({
        transactionId: row.transactionId,
        merchantId: context.merchantId,
        cardId: row.cardId,
        tradeNo: row.tradeNo,
        type: row.type,
        status: row.status,
        amount: row.amount,
        amountMinor: minorColumn(row.amount, row.currency),
        fee: row.fee,
        feeMinor: minorColumn(row.fee, row.currency),
        currency: row.currency,
        merchantName: row.merchantName,
        createdAt: row.createdAt,
        observedAt: context.observedAt,
        runId: context.runId,
      }) as { written: number } | undefined;
      if (result === undefined) counts.unchanged += 1;
      else if (existed) counts.updated += 1;
      else counts.inserted += 1;
    }
    return counts;
  }
}
