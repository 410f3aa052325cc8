import { transactionEffect } from '../ledger/transaction-effect.js';
import { orderParams } from '../orders/order-request.js';
import type { CardRecord } from '../store/records.js';
import type { SandboxStore } from '../store/sandbox-store.js';
import type { CardLife, GeneratedOrder, GeneratedTransaction } from './card-life.js';

/**
 * Writes generated histories into the sandbox's tables through its stores, many cards per
 * SQLite transaction: generation is a bulk load, not a sequence of requests.
 */
export class WorldWriter {
  readonly #store: SandboxStore;

  constructor(store: SandboxStore) {
    this.#store = store;
  }

  /** Write many lives in one SQLite transaction. */
  writeLives(lives: readonly CardLife[], now: number): void {
    this.#store.atomically(() => {
      for (const life of lives) this.writeLife(life, now);
    });
  }

  /** Write one card, its orders and its transactions (call inside a transaction for speed). */
  writeLife(life: CardLife, now: number): void {
    this.writeCard(life.card);
    for (const order of life.orders) {
      this.writeOrder(life.card.merchantId, order, order.kind === 'ISSUE' ? null : order.cardId);
    }
    for (const txn of life.transactions) this.writeTransaction(life.card, txn, now);
  }

  writeCard(card: CardRecord): void {
    this.#store.cards.insert(card);
  }

  /** An order, processed, with the idempotency record a real request would have left. */
  writeOrder(
    merchantId: string,
    order: GeneratedOrder,
    requestCardId: string | null,
    state?: 'LOST',
  ): void {
    this.#store.orders.insert({
      orderNo: order.orderNo,
      merchantId,
      merchantOrderNo: order.merchantOrderNo,
      kind: order.kind,
      cardId: order.cardId,
      offeringId: order.offeringId,
      amountMinor: order.amountMinor,
      state: state ?? (order.succeeded ? 'COMPLETED' : 'FAILED'),
      acceptedAt: order.acceptedAt,
      dueAt: null,
      outcomeAt: state ? null : order.outcomeAt,
      forcedOutcome: null,
    });
    this.#store.orders.remember(
      {
        merchantId,
        merchantOrderNo: order.merchantOrderNo,
        kind: order.kind,
        params: orderParams({
          kind: order.kind,
          merchantOrderNo: order.merchantOrderNo,
          cardId: requestCardId ?? undefined,
          offeringId: order.offeringId ?? undefined,
          holderId: undefined,
          amountMinor: order.amountMinor ?? undefined,
        }),
        responseStatus: 201,
        responseBody: JSON.stringify({
          data: { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo },
        }),
      },
      order.acceptedAt,
    );
  }

  /**
   * A transaction of `card`; it is posted (and counted in the card's stored balance) when it is
   * visible at `now`, unless `unapplied` (a CANCELLED card's balance stays 0).
   */
  writeTransaction(
    card: CardRecord,
    txn: GeneratedTransaction,
    now: number,
    options: { currency?: string; amountText?: string; unapplied?: boolean } = {},
  ): void {
    const posted = txn.visibleAt <= now;
    const moves = posted && !options.unapplied;
    this.#store.transactions.insert({
      ...txn,
      merchantId: card.merchantId,
      currency: options.currency ?? card.currency,
      posted,
      appliedEffectMinor: moves
        ? transactionEffect(txn.type, txn.status, txn.amountMinor, txn.feeMinor)
        : 0,
      amountText: options.amountText ?? null,
    });
  }
}
