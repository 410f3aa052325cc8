import { percentOf } from '../../money/percent.js';
import { recordTransaction } from '../activity/card-activity.js';
import { availableBalance } from '../control/card-network.js';
import { hashUnit } from '../random/seeded-random.js';
import type { SandboxContext } from '../sandbox-context.js';
import type { CardRecord, OrderRecord } from '../store/records.js';

/** How an order turned out. */
export type OrderOutcome = 'success' | 'failure';

/** The merchant name on the FEE records the service writes for orders. */
export const ISSUER_FEE_NAME = 'Card issuer';

/** Statuses in which a card can no longer take money in or out. */
const CLOSED: ReadonlySet<CardRecord['status']> = new Set([
  'CANCELLING',
  'CANCELLED',
  'BLOCKED',
  'FAILED',
]);

/** The outcome drawn for a money order: fixed by the seed and the order number, so replayable. */
function drawnOutcome(ctx: SandboxContext, order: OrderRecord): OrderOutcome {
  if (order.forcedOutcome) return order.forcedOutcome;
  if (order.kind === 'FREEZE' || order.kind === 'UNFREEZE' || order.kind === 'CANCEL')
    return 'success';
  return hashUnit(ctx.seed, 'order-outcome', order.orderNo) < ctx.failureRate
    ? 'failure'
    : 'success';
}

/**
 * Carry out an accepted order at time `at` (reference-model sections 2-3): move the card to its
 * outcome status, move the money, and leave the order's FEE record (`tradeNo` = `orderNo`).
 * @returns the outcome.
 */
export function processOrder(
  ctx: SandboxContext,
  order: OrderRecord,
  at: number,
  forced?: OrderOutcome,
): OrderOutcome {
  return ctx.store.atomically(() => {
    const card = order.cardId ? ctx.store.cards.get(order.cardId) : undefined;
    if (!card) throw new Error(`order ${order.orderNo} has no card`);
    let outcome = forced ?? drawnOutcome(ctx, order);
    const amount = order.amountMinor ?? 0;
    const fee = (status: 'COMPLETED' | 'DECLINED', feeMinor: number) =>
      recordTransaction(ctx, {
        cardId: card.cardId,
        type: 'FEE',
        status,
        amountMinor: status === 'COMPLETED' ? feeMinor : 0,
        feeMinor: 0,
        currency: card.currency,
        merchantName: ISSUER_FEE_NAME,
        tradeNo: order.orderNo,
        createdAt: at,
        visibleAt: at,
      });
    switch (order.kind) {
      case 'ISSUE': {
        const offering = ctx.store.offerings.get(order.merchantId, card.offeringId);
        if (outcome === 'success' && card.status === 'PENDING' && offering) {
          ctx.store.cards.setStatus(card.cardId, 'ACTIVE');
          ctx.store.cards.adjustBalance(card.cardId, amount);
          fee('COMPLETED', offering.issuanceFeeMinor);
        } else {
          outcome = 'failure';
          ctx.store.cards.setStatus(card.cardId, 'FAILED');
          ctx.store.merchants.adjustBalance(order.merchantId, amount);
          fee('DECLINED', 0);
        }
        break;
      }
      case 'DEPOSIT': {
        const offering = ctx.store.offerings.get(order.merchantId, card.offeringId);
        if (outcome === 'success' && !CLOSED.has(card.status) && offering) {
          ctx.store.cards.adjustBalance(card.cardId, amount);
          fee('COMPLETED', percentOf(amount, offering.depositFeePercent, 'half-up'));
        } else {
          outcome = 'failure';
          ctx.store.merchants.adjustBalance(order.merchantId, amount);
          fee('DECLINED', 0);
        }
        break;
      }
      case 'WITHDRAW':
        if (
          outcome === 'success' &&
          !CLOSED.has(card.status) &&
          availableBalance(ctx, card) >= amount
        ) {
          ctx.store.cards.adjustBalance(card.cardId, -amount);
          ctx.store.merchants.adjustBalance(order.merchantId, amount);
          fee('COMPLETED', 0);
        } else {
          outcome = 'failure';
          fee('DECLINED', 0);
        }
        break;
      // A status order succeeds exactly when its card is still in the state its acceptance
      // left (a forced failure does not change that): a card the service blocked meanwhile
      // stays as it is, and the order fails.
      case 'FREEZE':
        outcome = card.status === 'FREEZING' ? 'success' : 'failure';
        if (outcome === 'success') ctx.store.cards.setStatus(card.cardId, 'FROZEN');
        break;
      case 'UNFREEZE':
        outcome = card.status === 'UNFREEZING' ? 'success' : 'failure';
        if (outcome === 'success') ctx.store.cards.setStatus(card.cardId, 'ACTIVE');
        break;
      case 'CANCEL':
        if (card.status === 'CANCELLING') {
          outcome = 'success';
          ctx.store.merchants.adjustBalance(order.merchantId, card.balanceMinor);
          ctx.store.cards.setBalance(card.cardId, 0);
          ctx.store.cards.setStatus(card.cardId, 'CANCELLED');
          fee('COMPLETED', 0);
        } else {
          outcome = 'failure';
          fee('DECLINED', 0);
        }
        break;
    }
    ctx.store.orders.settle(order.orderNo, outcome === 'success' ? 'COMPLETED' : 'FAILED', at);
    return outcome;
  });
}
