import type { TransactionStatus, TransactionType } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import type { SandboxDatabase } from './database.js';
import type { PageResult, PageWindow } from './page.js';
import { type IndexedRow, LazyRecencyIndex } from './recency-index.js';
import type { TransactionRecord } from './records.js';
import { StatementCache } from './statement-cache.js';

const TRANSACTION_COLUMNS = `transaction_id AS transactionId, merchant_id AS merchantId, card_id AS cardId,
  trade_no AS tradeNo, type, status, amount_minor AS amountMinor, fee_minor AS feeMinor, currency,
  merchant_name AS merchantName, created_at AS createdAt, visible_at AS visibleAt, posted,
  applied_effect_minor AS appliedEffectMinor, amount_text AS amountText`;

type TransactionRow = Omit<TransactionRecord, 'posted'> & { posted: 0 | 1 };

function fromRow(row: TransactionRow): TransactionRecord {
  return { ...row, posted: row.posted === 1 };
}

/** The filters of GET /transactions, with times as epoch milliseconds (both ends inclusive). */
export interface TransactionFilter {
  readonly cardId?: string | undefined;
  readonly type?: TransactionType | undefined;
  readonly status?: TransactionStatus | undefined;
  readonly startTime?: number | undefined;
  readonly endTime?: number | undefined;
}

/** The index partitions a posted transaction belongs to (one per filter combination). */
function partitions(merchantId: string, type: string, status: string): string[] {
  return [
    merchantId,
    `${merchantId}|t:${type}`,
    `${merchantId}|s:${status}`,
    `${merchantId}|t:${type}|s:${status}`,
  ];
}

function partitionFor(merchantId: string, filter: TransactionFilter): string {
  let key = merchantId;
  if (filter.type) key += `|t:${filter.type}`;
  if (filter.status) key += `|s:${filter.status}`;
  return key;
}

/**
 * Card transactions. Only posted (visible) ones are listed. Merchant-wide pages come from an
 * in-memory {@link RecencyIndex} (built on first use, kept up to date by every write through
 * this store); pages of one card, which are short, from SQLite.
 */
export class TransactionStore {
  readonly #sql: StatementCache;
  readonly #index = new LazyRecencyIndex(() => this.#indexRows());

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
  }

  /** Build the index now, so that the first page asked for does not wait for it. */
  buildIndex(): void {
    this.#index.get();
  }

  /** Forget the index (after writes that bypassed this store, or a rolled-back transaction). */
  invalidateIndex(): void {
    this.#index.invalidate();
  }

  /** Index builds and writes so far: a rollback after any of them must forget the index. */
  get indexWrites(): number {
    return this.#index.writes;
  }

  *#indexRows(): Generator<IndexedRow> {
    const rows = this.#sql
      .get(
        'SELECT rowid AS row, merchant_id AS merchantId, type, status, created_at AS createdAt, transaction_id AS id FROM transactions WHERE posted = 1',
      )
      .iterate() as IterableIterator<{
      row: number;
      merchantId: string;
      type: string;
      status: string;
      createdAt: number;
      id: string;
    }>;
    for (const r of rows)
      yield {
        row: r.row,
        createdAt: r.createdAt,
        id: r.id,
        keys: partitions(r.merchantId, r.type, r.status),
      };
  }

  #rowOf(transactionId: string): number {
    return (
      this.#sql
        .get('SELECT rowid AS row FROM transactions WHERE transaction_id = ?')
        .get(transactionId) as { row: number }
    ).row;
  }

  /** One transaction, posted or not. */
  get(transactionId: string): TransactionRecord | undefined {
    const row = this.#sql
      .get(`SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE transaction_id = ?`)
      .get(transactionId) as TransactionRow | undefined;
    return row && fromRow(row);
  }

  /** Add a transaction. */
  insert(txn: TransactionRecord): void {
    const result = this.#sql
      .get(
        `INSERT INTO transactions (transaction_id, merchant_id, card_id, trade_no, type, status, amount_minor, fee_minor,
          currency, merchant_name, created_at, visible_at, posted, applied_effect_minor, amount_text)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        txn.transactionId,
        txn.merchantId,
        txn.cardId,
        txn.tradeNo,
        txn.type,
        txn.status,
        txn.amountMinor,
        txn.feeMinor,
        txn.currency,
        txn.merchantName,
        txn.createdAt,
        txn.visibleAt,
        txn.posted ? 1 : 0,
        txn.appliedEffectMinor,
        txn.amountText ?? null,
      );
    if (txn.posted)
      this.#index.forWrite()?.add({
        row: Number(result.lastInsertRowid),
        createdAt: txn.createdAt,
        id: txn.transactionId,
        keys: partitions(txn.merchantId, txn.type, txn.status),
      });
  }

  /** Record a transaction's status, visibility and the balance effect now applied. */
  update(
    previous: TransactionRecord,
    status: TransactionStatus,
    posted: boolean,
    appliedEffect: Minor,
  ): void {
    this.#sql
      .get(
        'UPDATE transactions SET status = ?, posted = ?, applied_effect_minor = ? WHERE transaction_id = ?',
      )
      .run(status, posted ? 1 : 0, appliedEffect, previous.transactionId);
    const index =
      previous.status !== status || previous.posted !== posted ? this.#index.forWrite() : undefined;
    if (index) {
      const row = this.#rowOf(previous.transactionId);
      if (previous.posted)
        index.remove(row, partitions(previous.merchantId, previous.type, previous.status));
      if (posted) {
        index.add({
          row,
          createdAt: previous.createdAt,
          id: previous.transactionId,
          keys: partitions(previous.merchantId, previous.type, status),
        });
      }
    }
  }

  /** A card's transactions that are not posted yet (late postings still to come). */
  unpostedOf(cardId: string): TransactionRecord[] {
    const rows = this.#sql
      .get(`SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE card_id = ? AND posted = 0`)
      .all(cardId) as TransactionRow[];
    return rows.map(fromRow);
  }

  /** The earliest `visible_at` of a transaction not yet posted. */
  nextUnpostedAt(): number | undefined {
    const row = this.#sql
      .get('SELECT min(visible_at) AS at FROM transactions WHERE posted = 0')
      .get() as { at: number | null };
    return row.at ?? undefined;
  }

  /** Unposted transactions visible at `now`, oldest visibility first. */
  dueUnposted(now: number, limit: number): TransactionRecord[] {
    const rows = this.#sql
      .get(
        `SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE posted = 0 AND visible_at <= ?
         ORDER BY visible_at, rowid LIMIT ?`,
      )
      .all(now, limit) as TransactionRow[];
    return rows.map(fromRow);
  }

  /** A page of a merchant's posted transactions matching `filter`. */
  page(
    merchantId: string,
    filter: TransactionFilter,
    window: PageWindow,
  ): PageResult<TransactionRecord> {
    if (filter.cardId) return this.#cardPage(merchantId, filter, window);
    const found = this.#index.get().page(partitionFor(merchantId, filter), {
      offset: window.offset,
      limit: window.limit,
      ...(filter.startTime === undefined ? {} : { startTime: filter.startTime }),
      ...(filter.endTime === undefined ? {} : { endTime: filter.endTime }),
    });
    const rows = this.#sql.rowsByKey(
      `SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE rowid = ?`,
      found.rows,
    ) as TransactionRow[];
    return {
      rows: rows.map(fromRow),
      total: found.total,
    };
  }

  #cardPage(
    merchantId: string,
    filter: TransactionFilter,
    window: PageWindow,
  ): PageResult<TransactionRecord> {
    const clauses = ['card_id = ?', 'merchant_id = ?', 'posted = 1'];
    const params: (string | number)[] = [filter.cardId as string, merchantId];
    if (filter.type) {
      clauses.push('type = ?');
      params.push(filter.type);
    }
    if (filter.status) {
      clauses.push('status = ?');
      params.push(filter.status);
    }
    if (filter.startTime !== undefined) {
      clauses.push('created_at >= ?');
      params.push(filter.startTime);
    }
    if (filter.endTime !== undefined) {
      clauses.push('created_at <= ?');
      params.push(filter.endTime);
    }
    const where = clauses.join(' AND ');
    const { total } = this.#sql
      .get(`SELECT count(*) AS total FROM transactions WHERE ${where}`)
      .get(...params) as {
      total: number;
    };
    const rows = this.#sql
      .get(
        `SELECT ${TRANSACTION_COLUMNS} FROM transactions WHERE ${where}
         ORDER BY created_at DESC, transaction_id DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, window.limit, window.offset) as TransactionRow[];
    return { rows: rows.map(fromRow), total };
  }
}
