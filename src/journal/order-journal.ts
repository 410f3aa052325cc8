import type { Statement } from 'better-sqlite3';
import type { OrderKind, OrderState, OrdersTable } from '../mirror/mirror-schema.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** A journal row as stored (sql/002_orders.sql). */
export type JournaledOrder = OrdersTable;

/** An order about to leave: everything its SUBMITTED row holds. */
export interface SubmittedOrder {
  readonly merchantOrderNo: string;
  readonly merchantId: string;
  readonly kind: OrderKind;
  readonly cardId: string | null;
  readonly offeringId: string | null;
  readonly amount: string | null;
  readonly amountMinor: number | null;
  readonly currency: string | null;
  /** The exact request body, as JSON text. */
  readonly requestJson: string;
}

/**
 * The `orders` table: the merchant's order journal. Every statement is short, and the callers
 * that read before they write wrap both in {@link OrderJournal.atomically}, which takes
 * SQLite's write lock at once (BEGIN IMMEDIATE) so a concurrent writer waits on busy_timeout
 * instead of failing with a stale snapshot.
 */
export class OrderJournal {
  readonly #db: SqliteDatabase;
  readonly #statements = new Map<string, Statement>();

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** A statement compiled once per journal, however often it runs. */
  #prepare(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /** Run `work` in one write transaction; a throw rolls everything back. */
  atomically<T>(work: () => T): T {
    return this.#db.transaction(work).immediate();
  }

  /** The row of a merchantOrderNo, whichever merchant it belongs to. */
  get(merchantOrderNo: string): JournaledOrder | undefined {
    return this.#prepare('SELECT * FROM orders WHERE merchant_order_no = ?').get(merchantOrderNo) as
      | JournaledOrder
      | undefined;
  }

  /** The row carrying the upstream's `orderNo` for this merchant. */
  byOrderNo(merchantId: string, orderNo: string): JournaledOrder | undefined {
    return this.#prepare('SELECT * FROM orders WHERE merchant_id = ? AND order_no = ?').get(
      merchantId,
      orderNo,
    ) as JournaledOrder | undefined;
  }

  /** The rows still SUBMITTED by this project for `merchantId`, oldest first. */
  submitted(merchantId: string): JournaledOrder[] {
    return this.#prepare(
      `SELECT * FROM orders WHERE merchant_id = ? AND state = 'SUBMITTED' AND source = 'cli'
         ORDER BY submitted_at, merchant_order_no`,
    ).all(merchantId) as JournaledOrder[];
  }

  /**
   * The merchant's currency: as the sync learnt it from the balance, else the one currency its
   * journal rows carry; undefined when neither tells.
   */
  merchantCurrency(merchantId: string): string | undefined {
    return this.#currency(merchantId, '');
  }

  /**
   * The merchant's currency as the upstream told it: what the sync learnt from the balance, else
   * the one currency of the orders cardsync submitted (each checked against the upstream's).
   * Imported rows do not count: their currency is the books', held before any sync against
   * nothing but the file's own first row, and an order journaled in it would carry the upstream's
   * amount in another currency's minor units.
   */
  submittedCurrency(merchantId: string): string | undefined {
    return this.#currency(merchantId, "AND source = 'cli'");
  }

  #currency(merchantId: string, rows: string): string | undefined {
    const known = this.#prepare(
      'SELECT currency FROM merchants WHERE merchant_id = ? AND currency IS NOT NULL',
    ).get(merchantId) as { currency: string } | undefined;
    if (known) return known.currency;
    const journaled = this.#prepare(
      `SELECT DISTINCT currency FROM orders WHERE merchant_id = ? AND currency IS NOT NULL ${rows} LIMIT 2`,
    ).all(merchantId) as { currency: string }[];
    return journaled.length === 1 ? journaled[0]?.currency : undefined;
  }

  /** The latest `submitted_at` journaled for a card, from any source; undefined without one. */
  latestSubmission(cardId: string): string | undefined {
    const row = this.#prepare('SELECT max(submitted_at) AS at FROM orders WHERE card_id = ?').get(
      cardId,
    ) as { at: string | null };
    return row.at ?? undefined;
  }

  /** Journal an order about to be sent, `SUBMITTED` from source `cli`. */
  insertSubmitted(order: SubmittedOrder, at: string): void {
    this.#prepare(
      `INSERT INTO orders (merchant_order_no, merchant_id, kind, card_id, offering_id, amount,
           amount_minor, currency, submitted_at, order_no, state, error_code, request_json, source,
           import_file, import_line, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, 'SUBMITTED', NULL, ?, 'cli', NULL, NULL, ?, ?)`,
    ).run(
      order.merchantOrderNo,
      order.merchantId,
      order.kind,
      order.cardId,
      order.offeringId,
      order.amount,
      order.amountMinor,
      order.currency,
      at,
      order.requestJson,
      at,
      at,
    );
  }

  /**
   * Turn a REJECTED row whose refusal the upstream does not remember back into a SUBMITTED
   * one with the new request: the reference is free again (reference-model section 1).
   */
  reopen(order: SubmittedOrder, at: string): void {
    this.#prepare(
      `UPDATE orders SET kind = ?, card_id = ?, offering_id = ?, amount = ?, amount_minor = ?,
           currency = ?, submitted_at = ?, order_no = NULL, state = 'SUBMITTED', error_code = NULL,
           request_json = ?, updated_at = ?
         WHERE merchant_order_no = ? AND state = 'REJECTED' AND source = 'cli'`,
    ).run(
      order.kind,
      order.cardId,
      order.offeringId,
      order.amount,
      order.amountMinor,
      order.currency,
      at,
      order.requestJson,
      at,
      order.merchantOrderNo,
    );
  }

  /**
   * Settle a SUBMITTED row, with its `submitted_at` corrected when `submittedAt` is given; false
   * when it is no longer SUBMITTED (settled meanwhile).
   */
  settle(
    merchantOrderNo: string,
    outcome: {
      state: Exclude<OrderState, 'SUBMITTED' | 'IMPORTED'>;
      orderNo?: string;
      errorCode?: string;
    },
    at: string,
    submittedAt?: string,
  ): boolean {
    const changed = this.#prepare(
      `UPDATE orders SET state = ?, order_no = ?, error_code = ?, updated_at = ?,
           submitted_at = coalesce(?, submitted_at)
         WHERE merchant_order_no = ? AND state = 'SUBMITTED'`,
    ).run(
      outcome.state,
      outcome.orderNo ?? null,
      outcome.errorCode ?? null,
      at,
      submittedAt ?? null,
      merchantOrderNo,
    );
    return changed.changes === 1;
  }
}
