import type { TransactionStatus, TransactionType } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import type { SandboxDatabase } from './database.js';
import type { PageResult, PageWindow } from './page.js';
import type { TransactionRecord } from './records.js';
import { StatementCache } from './statement-cache.js';

const TRANSACTION_COLUMNS = `transaction_id AS transactionId, merchant_id AS merchantId, card_id AS cardId,
  trade_no AS tradeNo, type, status, amount_minor AS amountMinor, fee_minor AS feeMinor, currency,
  merchant_name AS merchantName, created_at AS createdAt, visible_at AS visibleAt, posted,
  applied_effect_minor AS appliedEffectMinor`;

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

/** Card transactions. Only posted (visible) ones are listed. */
export class TransactionStore {
  readonly #sql: StatementCache;

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
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
    this.#sql
      .get(
        `INSERT INTO transactions (transaction_id, merchant_id, card_id, trade_no, type, status, amount_minor, fee_minor,
          currency, merchant_name, created_at, visible_at, posted, applied_effect_minor)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
      );
  }

  /** Record a transaction's status, visibility and the balance effect now applied. */
  update(
    transactionId: string,
    status: TransactionStatus,
    posted: boolean,
    appliedEffect: Minor,
  ): void {
    this.#sql
      .get(
        'UPDATE transactions SET status = ?, posted = ?, applied_effect_minor = ? WHERE transaction_id = ?',
      )
      .run(status, posted ? 1 : 0, appliedEffect, transactionId);
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
    const clauses = filter.cardId
      ? ['card_id = ?', 'merchant_id = ?', 'posted = 1']
      : ['merchant_id = ?', 'posted = 1'];
    const params: (string | number)[] = filter.cardId ? [filter.cardId, merchantId] : [merchantId];
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
