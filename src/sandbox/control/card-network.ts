import type { TransactionStatus, TransactionType } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import { ApiError } from '../http/api-error.js';
import { transactionEffect } from '../ledger/transaction-effect.js';
import type { SandboxContext } from '../sandbox-context.js';
import type { CardRecord } from '../store/records.js';

/** The status a posted transaction starts in when none is given. */
export const DEFAULT_STATUS: Readonly<Record<TransactionType, TransactionStatus>> = {
  PURCHASE: 'PENDING',
  REFUND: 'PENDING',
  REVERSAL: 'COMPLETED',
  VERIFICATION: 'COMPLETED',
  FEE: 'COMPLETED',
};

/**
 * What the card can still spend: its balance less what late postings already authorised will
 * take when they post (a network authorises against holds, not only the posted balance).
 */
export function availableBalance(ctx: SandboxContext, card: CardRecord): Minor {
  let available = card.balanceMinor;
  for (const txn of ctx.store.transactions.unpostedOf(card.cardId)) {
    available += Math.min(
      0,
      transactionEffect(txn.type, txn.status, txn.amountMinor, txn.feeMinor),
    );
  }
  return available;
}

/** What the network makes of a new transaction. */
export interface NetworkDecision {
  readonly status: TransactionStatus;
}

/**
 * Apply the card network's own rules to a new transaction, as a real network would: a purchase
 * or verification on a card that is not ACTIVE, or a purchase beyond the balance, is DECLINED;
 * a refund or reversal must name a purchase of the card by `tradeNo` and may not return more
 * than was bought. `force` skips these rules (to plant what a faulty upstream would show).
 * @throws ApiError when a refund or reversal has no purchase or returns too much.
 */
export function networkDecision(
  ctx: SandboxContext,
  card: CardRecord,
  input: {
    type: TransactionType;
    status: TransactionStatus;
    amountMinor: Minor;
    feeMinor: Minor;
    tradeNo: string | undefined;
  },
): NetworkDecision {
  const { type, status } = input;
  if (type === 'PURCHASE' || type === 'VERIFICATION') {
    if (status === 'DECLINED') return { status };
    if (card.status !== 'ACTIVE') return { status: 'DECLINED' };
    if (type === 'PURCHASE' && availableBalance(ctx, card) < input.amountMinor + input.feeMinor) {
      return { status: 'DECLINED' };
    }
    return { status };
  }
  if (type === 'REFUND' || type === 'REVERSAL') {
    if (!input.tradeNo)
      throw new ApiError('VALIDATION_FAILED', [
        `a ${type} needs the tradeNo of the purchase it returns`,
      ]);
    const trade = ctx.store.db
      .prepare(
        `SELECT
           coalesce(sum(CASE WHEN type = 'PURCHASE' AND status <> 'DECLINED' THEN amount_minor END), 0) AS bought,
           coalesce(sum(CASE WHEN type IN ('REFUND', 'REVERSAL') AND status <> 'DECLINED' THEN amount_minor END), 0) AS returned,
           count(CASE WHEN type = 'PURCHASE' THEN 1 END) AS purchases
         FROM transactions WHERE card_id = ? AND trade_no = ?`,
      )
      .get(card.cardId, input.tradeNo) as { bought: number; returned: number; purchases: number };
    if (trade.purchases === 0) {
      throw new ApiError('VALIDATION_FAILED', [
        `tradeNo ${input.tradeNo} names no purchase of card ${card.cardId}`,
      ]);
    }
    if (trade.returned + input.amountMinor > trade.bought) {
      throw new ApiError('VALIDATION_FAILED', [
        `a ${type} of this size would return more than trade ${input.tradeNo} bought`,
      ]);
    }
  }
  return { status };
}
