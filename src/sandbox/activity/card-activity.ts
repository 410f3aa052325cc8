import type { TransactionStatus, TransactionType } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import { transactionEffect } from '../ledger/transaction-effect.js';
import type { SandboxContext } from '../sandbox-context.js';
import type { TransactionRecord } from '../store/records.js';

/** A transaction to record on a card. */
export interface NewTransaction {
  readonly cardId: string;
  readonly type: TransactionType;
  readonly status: TransactionStatus;
  readonly amountMinor: Minor;
  readonly feeMinor: Minor;
  readonly currency: string;
  readonly merchantName: string;
  readonly tradeNo: string;
  readonly createdAt: number;
  /** When it becomes visible through the API (late posting); `createdAt` or later. */
  readonly visibleAt: number;
}

/**
 * Bring a card's balance in line with what a transaction should now have moved. A transaction
 * moves money once it is posted (visible); a CANCELLED card's balance stays 0.
 */
function settleEffect(
  ctx: SandboxContext,
  txn: TransactionRecord,
  status: TransactionStatus,
  posted: boolean,
): void {
  const card = ctx.store.cards.get(txn.cardId);
  let applied = txn.appliedEffectMinor;
  if (posted && card && card.status !== 'CANCELLED') {
    const target = transactionEffect(txn.type, status, txn.amountMinor, txn.feeMinor);
    if (target !== applied) {
      ctx.store.cards.adjustBalance(txn.cardId, target - applied);
      applied = target;
    }
  }
  ctx.store.transactions.update(txn, status, posted, applied);
}

/** Record a transaction; it posts at once unless its `visibleAt` is still ahead of the clock. */
export function recordTransaction(ctx: SandboxContext, input: NewTransaction): TransactionRecord {
  const card = ctx.store.cards.get(input.cardId);
  if (!card) throw new Error(`no card ${input.cardId}`);
  const record: TransactionRecord = {
    transactionId: ctx.ids.next('txn'),
    merchantId: card.merchantId,
    cardId: input.cardId,
    tradeNo: input.tradeNo,
    type: input.type,
    status: input.status,
    amountMinor: input.amountMinor,
    feeMinor: input.feeMinor,
    currency: input.currency,
    merchantName: input.merchantName,
    createdAt: input.createdAt,
    visibleAt: Math.max(input.visibleAt, input.createdAt),
    posted: false,
    appliedEffectMinor: 0,
  };
  ctx.store.transactions.insert(record);
  settleEffect(ctx, record, record.status, record.visibleAt <= ctx.clock.now());
  const stored = ctx.store.transactions.get(record.transactionId);
  if (!stored) throw new Error(`transaction ${record.transactionId} vanished`);
  return stored;
}

/** Move a transaction to `status`, adjusting its card's balance if it is posted. */
export function changeTransactionStatus(
  ctx: SandboxContext,
  txn: TransactionRecord,
  status: TransactionStatus,
): void {
  settleEffect(ctx, txn, status, txn.posted);
}

/** Post a late transaction whose time has come. */
export function postTransaction(ctx: SandboxContext, txn: TransactionRecord): void {
  settleEffect(ctx, txn, txn.status, true);
}
