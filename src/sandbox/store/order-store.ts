import type { SandboxDatabase } from './database.js';
import type { IdempotencyRecord, OrderRecord, OrderState } from './records.js';
import { StatementCache } from './statement-cache.js';

const ORDER_COLUMNS = `order_no AS orderNo, merchant_id AS merchantId, merchant_order_no AS merchantOrderNo, kind,
  card_id AS cardId, offering_id AS offeringId, amount_minor AS amountMinor, state, accepted_at AS acceptedAt,
  due_at AS dueAt, outcome_at AS outcomeAt, forced_outcome AS forcedOutcome`;

/** Accepted orders and the idempotency keys of every remembered answer. */
export class OrderStore {
  readonly #sql: StatementCache;

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
  }

  /** One order by its service-assigned number. */
  get(orderNo: string): OrderRecord | undefined {
    return this.#sql.get(`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_no = ?`).get(orderNo) as
      | OrderRecord
      | undefined;
  }

  /** Add an accepted order. */
  insert(order: OrderRecord): void {
    this.#sql
      .get(
        `INSERT INTO orders (order_no, merchant_id, merchant_order_no, kind, card_id, offering_id, amount_minor, state,
          accepted_at, due_at, outcome_at, forced_outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        order.orderNo,
        order.merchantId,
        order.merchantOrderNo,
        order.kind,
        order.cardId,
        order.offeringId,
        order.amountMinor,
        order.state,
        order.acceptedAt,
        order.dueAt,
        order.outcomeAt,
        order.forcedOutcome,
      );
  }

  /** Record an order's outcome. */
  settle(orderNo: string, state: OrderState, outcomeAt: number): void {
    this.#sql
      .get('UPDATE orders SET state = ?, outcome_at = ? WHERE order_no = ?')
      .run(state, outcomeAt, orderNo);
  }

  /** The earliest due time of an order awaiting processing on a timer. */
  nextDueAt(): number | undefined {
    const row = this.#sql
      .get("SELECT min(due_at) AS at FROM orders WHERE state = 'ACCEPTED' AND due_at IS NOT NULL")
      .get() as { at: number | null };
    return row.at ?? undefined;
  }

  /** Orders due at `now`, in the order they were accepted. */
  due(now: number, limit: number): OrderRecord[] {
    return this.#sql
      .get(
        `SELECT ${ORDER_COLUMNS} FROM orders WHERE state = 'ACCEPTED' AND due_at IS NOT NULL AND due_at <= ?
         ORDER BY due_at, accepted_at, rowid LIMIT ?`,
      )
      .all(now, limit) as OrderRecord[];
  }

  /** Every order still awaiting its outcome, in the order accepted. */
  pending(): OrderRecord[] {
    return this.#sql
      .get(
        `SELECT ${ORDER_COLUMNS} FROM orders WHERE state = 'ACCEPTED' ORDER BY accepted_at, rowid`,
      )
      .all() as OrderRecord[];
  }

  /** The remembered answer for a merchant's order reference. */
  idempotency(merchantId: string, merchantOrderNo: string): IdempotencyRecord | undefined {
    return this.#sql
      .get(
        `SELECT merchant_id AS merchantId, merchant_order_no AS merchantOrderNo, kind, params,
          response_status AS responseStatus, response_body AS responseBody
         FROM idempotency WHERE merchant_id = ? AND merchant_order_no = ?`,
      )
      .get(merchantId, merchantOrderNo) as IdempotencyRecord | undefined;
  }

  /** Remember the answer given for a merchant's order reference. */
  remember(record: IdempotencyRecord, createdAt: number): void {
    this.#sql
      .get(
        `INSERT INTO idempotency (merchant_id, merchant_order_no, kind, params, response_status, response_body, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.merchantId,
        record.merchantOrderNo,
        record.kind,
        record.params,
        record.responseStatus,
        record.responseBody,
        createdAt,
      );
  }
}
