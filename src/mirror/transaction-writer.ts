import type { Statement } from 'better-sqlite3';
import type { Transaction } from '../contract/index.js';
import { createdAtSpan, spanReadLimit } from './created-at-span.js';
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

// Positional parameters: binding by name costs a lookup per parameter on the hot path.
const UPSERT = `
INSERT INTO transactions (transaction_id, merchant_id, card_id, trade_no, type, status, amount,
  amount_minor, fee, fee_minor, currency, merchant_name, created_at, first_seen_at, updated_at,
  updated_run_id)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
RETURNING rowid`;

const HIGHEST_ROWID = 'SELECT coalesce(max(rowid), 0) FROM transactions';

/**
 * What the mirror holds of a merchant's transactions created within a span, in the order of
 * {@link StoredTransaction}, at most `?` rows. Read through the time index, whose neighbouring
 * entries point at neighbouring table pages (a window's rows were inserted together), this
 * costs about half of the upsert's own lookup by id, which is random over the whole history.
 */
const STORED_IN_SPAN = `
SELECT transaction_id, card_id, trade_no, type, status, amount, fee, currency, merchant_name,
  created_at
FROM transactions WHERE merchant_id = ? AND created_at BETWEEN ? AND ? LIMIT ?`;

/** A transaction as the mirror holds it: the columns the upsert compares, in this order. */
type StoredTransaction = [
  transactionId: string,
  cardId: string,
  tradeNo: string,
  type: string,
  status: string,
  amount: string,
  fee: string,
  currency: string,
  merchantName: string,
  createdAt: string,
];

/**
 * Upserts transactions with prepared statements (the hot path of a sync: kysely would compile
 * each statement again). Unchanged rows are not written at all, so re-reading a window costs
 * no disk; a status change is recorded in `transaction_status_changes` by a trigger.
 *
 * A batch is first compared with what the mirror holds over the span of its `createdAt`s, so
 * a re-read window (the nightly lookback) costs one range read instead of a lookup per row. A
 * row not found there as it was read (new, changed, or past the read's limit) goes through the
 * upsert, which decides for itself; so the comparison saves work and never decides a write.
 */
export class TransactionWriter {
  readonly #upsert: Statement;
  readonly #highestRowid: Statement;
  readonly #storedInSpan: Statement;

  constructor(db: SqliteDatabase) {
    this.#upsert = db.prepare(UPSERT).pluck().safeIntegers(false);
    this.#highestRowid = db.prepare(HIGHEST_ROWID).pluck();
    this.#storedInSpan = db.prepare(STORED_IN_SPAN).raw(true);
  }

  /**
   * Write `rows`; call inside the caller's transaction so a window commits whole.
   *
   * Inserted is told from updated without a lookup of its own: SQLite gives a new row a rowid
   * above every rowid in the table (rows are never deleted), so a written row whose rowid is
   * above the highest seen so far was inserted, even when a window holds two versions of it.
   */
  write(rows: Iterable<Transaction>, context: WriteContext): WriteCounts {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    const batch = Array.isArray(rows) ? (rows as readonly Transaction[]) : [...rows];
    if (batch.length === 0) return counts;
    const stored = this.#stored(batch, context.merchantId);
    let highest = this.#highestRowid.get() as number;
    for (const row of batch) {
      if (sameAsStored(stored.get(row.transactionId), row)) {
        counts.unchanged += 1;
        continue;
      }
      // The mirror may now hold this version: a later copy in the batch goes to the upsert.
      stored.delete(row.transactionId);
      const rowid = this.#upsert.get(
        row.transactionId,
        context.merchantId,
        row.cardId,
        row.tradeNo,
        row.type,
        row.status,
        row.amount,
        minorColumn(row.amount, row.currency),
        row.fee,
        minorColumn(row.fee, row.currency),
        row.currency,
        row.merchantName,
        row.createdAt,
        context.observedAt,
        context.observedAt,
        context.runId,
      ) as number | undefined;
      if (rowid === undefined) counts.unchanged += 1;
      else if (rowid > highest) {
        counts.inserted += 1;
        highest = rowid;
      } else counts.updated += 1;
    }
    return counts;
  }

  /** The mirror's rows over the span of the batch's `createdAt`s, by id. */
  #stored(batch: readonly Transaction[], merchantId: string): Map<string, StoredTransaction> {
    const [first, last] = createdAtSpan(batch);
    const found = this.#storedInSpan.all(
      merchantId,
      first,
      last,
      spanReadLimit(batch.length),
    ) as StoredTransaction[];
    return new Map(found.map((stored) => [stored[0], stored]));
  }
}

/** True when the mirror holds `row` exactly as read: the columns the upsert compares. */
function sameAsStored(stored: StoredTransaction | undefined, row: Transaction): boolean {
  if (stored === undefined) return false;
  const [, cardId, tradeNo, type, status, amount, fee, currency, merchantName, createdAt] = stored;
  return (
    status === row.status &&
    amount === row.amount &&
    fee === row.fee &&
    cardId === row.cardId &&
    tradeNo === row.tradeNo &&
    type === row.type &&
    currency === row.currency &&
    merchantName === row.merchantName &&
    createdAt === row.createdAt
  );
}
