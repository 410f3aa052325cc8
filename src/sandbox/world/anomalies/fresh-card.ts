import type { OrderKind, TransactionStatus, TransactionType } from '../../../contract/index.js';
import type { Minor } from '../../../money/decimal.js';
import { percentOf } from '../../../money/percent.js';
import { issueCardDetails } from '../../ledger/card-details.js';
import { transactionEffect } from '../../ledger/transaction-effect.js';
import { ISSUER_FEE_NAME } from '../../orders/order-processor.js';
import type { SandboxContext } from '../../sandbox-context.js';
import type { CardRecord, MerchantRecord, OfferingRecord } from '../../store/records.js';
import type { GeneratedOrder, GeneratedTransaction } from '../card-life.js';
import type { JournalFile } from '../journal-file.js';
import { journalRow } from '../journal-row.js';
import type { WorldWriter } from '../world-writer.js';

/** Where planting draws ids and writes to. */
export interface PlantingKit {
  readonly ctx: SandboxContext;
  readonly writer: WorldWriter;
  readonly journals: ReadonlyMap<string, JournalFile>;
  readonly now: number;
  readonly nextOrderNo: () => string;
  readonly nextTransactionId: () => string;
  readonly nextTradeNo: () => string;
  readonly nextMerchantOrderNo: () => string;
  readonly nextCardId: () => string;
}

const PROCESSING_MS = 2_000;

/**
 * A new card with a short, scripted history, built for one planted anomaly so that nothing
 * else about it can raise a finding. Every step keeps the upstream's own books consistent
 * (the card balance is what its transactions and completed orders make it) unless the step
 * says it does not.
 */
export class FreshCard {
  readonly kit: PlantingKit;
  readonly merchant: MerchantRecord;
  readonly offering: OfferingRecord;
  readonly cardId: string;
  readonly issueOrder: GeneratedOrder;
  readonly issueFee: GeneratedTransaction;
  status: CardRecord['status'] = 'ACTIVE';
  balance: Minor;
  readonly #orders: { order: GeneratedOrder; journaled: boolean; lost: boolean }[] = [];
  readonly #transactions: {
    txn: GeneratedTransaction;
    currency?: string;
    amountText?: string;
    applied: boolean;
  }[] = [];
  #merchantDelta: Minor = 0;

  constructor(
    kit: PlantingKit,
    merchant: MerchantRecord,
    offering: OfferingRecord,
    issuedAt: number,
    options: { amount?: Minor; issuanceFee?: Minor; journaled?: boolean } = {},
  ) {
    this.kit = kit;
    this.merchant = merchant;
    this.offering = offering;
    this.cardId = kit.nextCardId();
    const amount =
      options.amount ??
      offering.minLoadMinor + Math.floor((offering.maxLoadMinor - offering.minLoadMinor) / 10);
    this.issueOrder = this.#order('ISSUE', issuedAt, amount, {
      journaled: options.journaled ?? true,
    });
    this.#merchantDelta -= amount;
    this.balance = amount;
    this.issueFee = this.feeRecord(
      this.issueOrder,
      options.issuanceFee ?? offering.issuanceFeeMinor,
    );
  }

  #order(
    kind: OrderKind,
    at: number,
    amount: Minor | null,
    options: { journaled?: boolean; lost?: boolean } = {},
  ): GeneratedOrder {
    const order: GeneratedOrder = {
      orderNo: this.kit.nextOrderNo(),
      merchantOrderNo: this.kit.nextMerchantOrderNo(),
      kind,
      cardId: this.cardId,
      offeringId: kind === 'ISSUE' ? this.offering.id : null,
      amountMinor: amount,
      acceptedAt: at,
      outcomeAt: at + PROCESSING_MS,
      succeeded: true,
    };
    this.#orders.push({ order, journaled: options.journaled ?? true, lost: options.lost ?? false });
    return order;
  }

  /** The COMPLETED FEE record of an order, charging `fee` to the card. */
  feeRecord(order: GeneratedOrder, fee: Minor): GeneratedTransaction {
    return this.transaction({
      type: 'FEE',
      status: 'COMPLETED',
      amount: fee,
      tradeNo: order.orderNo,
      at: order.outcomeAt,
      merchantName: ISSUER_FEE_NAME,
    });
  }

  /** A transaction on the card; it moves the balance as section 4 says unless the card is CANCELLED. */
  transaction(input: {
    type: TransactionType;
    status: TransactionStatus;
    amount: Minor;
    fee?: Minor;
    tradeNo?: string;
    at: number;
    merchantName?: string;
    currency?: string;
    amountText?: string;
  }): GeneratedTransaction {
    const txn: GeneratedTransaction = {
      transactionId: this.kit.nextTransactionId(),
      cardId: this.cardId,
      tradeNo: input.tradeNo ?? this.kit.nextTradeNo(),
      type: input.type,
      status: input.status,
      amountMinor: input.amount,
      feeMinor: input.fee ?? 0,
      merchantName: input.merchantName ?? 'Planted Goods Ltd',
      createdAt: input.at,
      visibleAt: input.at,
    };
    const applied = this.status !== 'CANCELLED';
    if (applied)
      this.balance += transactionEffect(txn.type, txn.status, txn.amountMinor, txn.feeMinor);
    this.#transactions.push({
      txn,
      applied,
      ...(input.currency ? { currency: input.currency } : {}),
      ...(input.amountText ? { amountText: input.amountText } : {}),
    });
    return txn;
  }

  /** A completed deposit with its FEE record (the correct fee unless `fee` says otherwise). */
  deposit(at: number, amount: Minor, fee?: Minor): GeneratedOrder {
    const order = this.#order('DEPOSIT', at, amount);
    this.#merchantDelta -= amount;
    this.balance += amount;
    this.feeRecord(order, fee ?? percentOf(amount, this.offering.depositFeePercent, 'half-up'));
    return order;
  }

  /** A completed withdrawal with its FEE record (0 unless `fee` says otherwise). */
  withdraw(at: number, amount: Minor, fee = 0): GeneratedOrder {
    const order = this.#order('WITHDRAW', at, amount);
    this.#merchantDelta += amount;
    this.balance -= amount;
    this.feeRecord(order, fee);
    return order;
  }

  /** An order accepted but never processed: the merchant paid, nothing else happened. */
  lostOrder(kind: 'DEPOSIT' | 'FREEZE', at: number, amount: Minor | null): GeneratedOrder {
    const order = this.#order(kind, at, amount, { lost: true });
    if (kind === 'DEPOSIT' && amount !== null) this.#merchantDelta -= amount;
    return order;
  }

  /** A processed FREEZE: the card is FROZEN from its outcome on. */
  freeze(at: number): GeneratedOrder {
    const order = this.#order('FREEZE', at, null);
    this.status = 'FROZEN';
    return order;
  }

  /** Set the balance without any transaction: the upstream's books disagree with themselves. */
  skewBalance(delta: Minor): void {
    this.balance += delta;
  }

  /** The card as it stands after its scripted history. */
  snapshot(): CardRecord {
    return {
      cardId: this.cardId,
      merchantId: this.merchant.merchantId,
      offeringId: this.offering.id,
      holderId: this.offering.requiresHolder ? `hld_${this.cardId.slice(5, 17)}` : null,
      status: this.status,
      balanceMinor: this.balance,
      currency: this.offering.currency,
      createdAt: this.issueOrder.acceptedAt,
      ...issueCardDetails(this.kit.ctx.seed, this.cardId, this.issueOrder.acceptedAt),
    };
  }

  /** Write the card, its orders and transactions, its journal rows and the merchant's balance. */
  commit(): void {
    const { writer, ctx, now } = this.kit;
    const card = this.snapshot();
    writer.writeCard(card);
    const journal = this.kit.journals.get(this.merchant.merchantId);
    for (const { order, journaled, lost } of this.#orders) {
      writer.writeOrder(
        this.merchant.merchantId,
        order,
        order.kind === 'ISSUE' ? null : order.cardId,
        lost ? 'LOST' : undefined,
      );
      if (journaled) journal?.append([journalRow(order, card.currency)]);
    }
    for (const { txn, currency, amountText, applied } of this.#transactions) {
      writer.writeTransaction(card, txn, now, {
        ...(currency ? { currency } : {}),
        ...(amountText ? { amountText } : {}),
        ...(applied ? {} : { unapplied: true }),
      });
    }
    ctx.store.merchants.adjustBalance(this.merchant.merchantId, this.#merchantDelta);
  }
}
