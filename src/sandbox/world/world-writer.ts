import type { Statement } from 'better-sqlite3';
import { transactionEffect } from '../ledger/transaction-effect.js';
import { orderParams } from '../orders/order-request.js';
import type { SandboxDatabase } from '../store/database.js';
import type { CardRecord } from '../store/records.js';
import type { CardLife, GeneratedOrder, GeneratedTransaction } from './card-life.js';

/**
 * Writes generated histories straight into the sandbox's tables with prepared statements, many
 * cards per SQLite transaction: generation is a bulk load, not a sequence of requests.
 */
export class WorldWriter {
  readonly #db: SandboxDatabase;
  readonly #card: Statement;
  readonly #transaction: Statement;
  readonly #order: Statement;
  readonly #idempotency: Statement;

  constructor(db: SandboxDatabase) {
    this.#db = db;
    this.#card = db.prepare(
      `INSERT INTO cards (card_id, merchant_id, offering_id, holder_id, last_four, status, balance_minor, currency,
        created_at, card_number, cvv, expiry_month, expiry_year) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#transaction = db.prepare(
      `INSERT INTO transactions (transaction_id, merchant_id, card_id, trade_no, type, status, amount_minor, fee_minor,
        currency, merchant_name, created_at, visible_at, posted, applied_effect_minor, amount_text)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.#order = db.prepare(
      `INSERT INTO orders (order_no, merchant_id, merchant_order_no, kind, card_id, offering_id, amount_minor, state,
        accepted_at, due_at, outcome_at, forced_outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL)`,
    );
    this.#idempotency = db.prepare(
      `INSERT INTO idempotency (merchant_id, merchant_order_no, kind, params, response_status, response_body, created_at)
       VALUES (?, ?, ?, ?, 201, ?, ?)`,
    );
  }

  /** Write many lives in one SQLite transaction. */
  writeLives(lives: readonly CardLife[], now: number): void {
    this.#db.transaction(() => {
      for (const life of lives) this.writeLife(life, now);
    })();
  }

  /** Write one card, its orders and its transactions (call inside a transaction for speed). */
  writeLife(life: CardLife, now: number): void {
    this.writeCard(life.card);
    for (const order of life.orders)
      this.writeOrder(life.card.merchantId, order, 'ISSUE' === order.kind ? null : order.cardId);
    for (const txn of life.transactions) this.writeTransaction(life.card, txn, now);
  }

  writeCard(card: CardRecord): void {
    this.#card.run(
      card.cardId,
      card.merchantId,
      card.offeringId,
      card.holderId,
      card.lastFour,
      card.status,
      card.balanceMinor,
      card.currency,
      card.createdAt,
      card.cardNumber,
      card.cvv,
      card.expiryMonth,
      card.expiryYear,
    );
  }

  /** An order, processed, with the idempotency record a real request would have left. */
  writeOrder(
    merchantId: string,
    order: GeneratedOrder,
    requestCardId: string | null,
    state?: 'LOST',
  ): void {
    this.#order.run(
      order.orderNo,
      merchantId,
      order.merchantOrderNo,
      order.kind,
      order.cardId,
      order.offeringId,
      order.amountMinor,
      state ?? (order.succeeded ? 'COMPLETED' : 'FAILED'),
      order.acceptedAt,
      state ? null : order.outcomeAt,
    );
    this.#idempotency.run(
      merchantId,
      order.merchantOrderNo,
      order.kind,
      orderParams({
        kind: order.kind,
        merchantOrderNo: order.merchantOrderNo,
        cardId: requestCardId ?? undefined,
        offeringId: order.offeringId ?? undefined,
        holderId: undefined,
        amountMinor: order.amountMinor ?? undefined,
      }),
      JSON.stringify({ data: { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo } }),
      order.acceptedAt,
    );
  }

  /**
   * A transaction of `card`; it is posted (and counted in the card's stored balance) when it is
   * visible at `now`, unless the card is CANCELLED, whose balance stays 0.
   */
  writeTransaction(
    card: CardRecord,
    txn: GeneratedTransaction,
    now: number,
    options: { currency?: string; amountText?: string; unapplied?: boolean } = {},
  ): void {
    const posted = txn.visibleAt <= now;
    const moves = posted && !options.unapplied;
    const effect = moves
      ? transactionEffect(txn.type, txn.status, txn.amountMinor, txn.feeMinor)
      : 0;
    this.#transaction.run(
      txn.transactionId,
      card.merchantId,
      txn.cardId,
      txn.tradeNo,
      txn.type,
      txn.status,
      txn.amountMinor,
      txn.feeMinor,
      options.currency ?? card.currency,
      txn.merchantName,
      txn.createdAt,
      txn.visibleAt,
      posted ? 1 : 0,
      effect,
      options.amountText ?? null,
    );
  }
}
