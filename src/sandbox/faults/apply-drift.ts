import type {
  ListTransactionsQuery,
  OperationId,
  TransactionStatus,
} from '../../contract/index.js';
import { currencyExponent } from '../../money/currency.js';
import { changeTransactionStatus, recordTransaction } from '../activity/card-activity.js';
import { networkDecision } from '../control/card-network.js';
import { ApiError } from '../http/api-error.js';
import { requestTimeRange } from '../http/request-values.js';
import { canMove } from '../ledger/transaction-lifecycle.js';
import { placeOrder } from '../orders/order-desk.js';
import { processOrder } from '../orders/order-processor.js';
import { hashUnit } from '../random/seeded-random.js';
import type { SandboxContext } from '../sandbox-context.js';
import type { DriftPlan } from './fault-lab.js';

/** How much a list moved under a reader's feet. */
export interface DriftResult {
  readonly inserted: number;
  readonly progressed: number;
}

/** The name on purchases that drift plants, so they are easy to tell apart in a mirror. */
export const DRIFT_MERCHANT_NAME = 'Drift Market';

const NONE: DriftResult = { inserted: 0, progressed: 0 };

/** The status a planted purchase starts in under a status filter (SETTLED: COMPLETED, then on). */
const START_FOR_FILTER: Partial<Record<TransactionStatus, TransactionStatus>> = {
  COMPLETED: 'COMPLETED',
  SETTLED: 'COMPLETED',
  DECLINED: 'DECLINED',
};

/**
 * Change what a list call is about to read, as other activity would between two page requests,
 * and only through the domain's own functions so the ledger stays right: on GET /transactions,
 * purchases on one of the merchant's cards dated at the newest end of the queried range, and
 * PENDING transactions in that range moved to COMPLETED; on GET /cards, cards issued by another
 * channel (the merchant balance pays, as for any issuance) and the merchant's accepted orders
 * processed (a PENDING card turns ACTIVE, a FREEZING one FROZEN, ...).
 */
export function applyDrift(
  ctx: SandboxContext,
  operation: OperationId,
  merchantId: string,
  query: unknown,
  plan: DriftPlan,
): DriftResult {
  if (operation === 'listTransactions')
    return driftTransactions(ctx, merchantId, query as ListTransactionsQuery, plan);
  if (operation === 'listCards') return driftCards(ctx, merchantId, plan);
  return NONE;
}

function driftTransactions(
  ctx: SandboxContext,
  merchantId: string,
  query: ListTransactionsQuery,
  plan: DriftPlan,
): DriftResult {
  let startTime: number | undefined;
  let endTime: number | undefined;
  try {
    ({ startTime, endTime } = requestTimeRange(query.startTime, query.endTime));
  } catch (error) {
    // The handler answers the bad query with its 400; nothing drifts for it.
    if (error instanceof ApiError) return NONE;
    throw error;
  }
  return ctx.store.atomically(() => {
    const now = ctx.clock.now();
    // The newest end of the range: with newest-first order every later page shifts by one row.
    const at = Math.min(endTime ?? now, now);
    const card =
      query.cardId !== undefined
        ? ctx.store.cards.getOwned(merchantId, query.cardId)
        : ctx.store.cards.page(merchantId, 'ACTIVE', { offset: 0, limit: 1 }).rows[0];
    let inserted = 0;
    if (card && (startTime === undefined || at >= startTime)) {
      const scale = 10 ** currencyExponent(card.currency);
      // Start in the status the list is filtered on, so the new rows land in it.
      const wanted = (query.status && START_FOR_FILTER[query.status]) ?? 'PENDING';
      for (let i = 0; i < plan.insert; i++) {
        const units = 1 + Math.floor(hashUnit(ctx.seed, 'fault-drift', plan.key, String(i)) * 20);
        const current = ctx.store.cards.get(card.cardId) ?? card;
        const amountMinor = units * scale;
        const { status } = networkDecision(ctx, current, {
          type: 'PURCHASE',
          status: wanted,
          amountMinor,
          feeMinor: 0,
          tradeNo: undefined,
        });
        const txn = recordTransaction(ctx, {
          cardId: card.cardId,
          type: 'PURCHASE',
          status,
          amountMinor,
          feeMinor: 0,
          currency: card.currency,
          merchantName: DRIFT_MERCHANT_NAME,
          tradeNo: ctx.ids.next('trd'),
          createdAt: at,
          visibleAt: at,
        });
        if (query.status === 'SETTLED' && status === 'COMPLETED')
          changeTransactionStatus(ctx, txn, 'SETTLED');
        inserted++;
      }
    }
    const pending = ctx.store.transactions.page(
      merchantId,
      { cardId: query.cardId, type: query.type, status: 'PENDING', startTime, endTime },
      { offset: 0, limit: plan.progress },
    ).rows;
    let progressed = 0;
    for (const txn of pending) {
      if (!canMove(txn.type, 'PENDING', 'COMPLETED')) continue;
      changeTransactionStatus(ctx, txn, 'COMPLETED');
      progressed++;
    }
    return { inserted, progressed };
  });
}

function driftCards(ctx: SandboxContext, merchantId: string, plan: DriftPlan): DriftResult {
  // The cheapest offering that needs no holder: the issuance most likely to be accepted.
  const offering = ctx.store.offerings
    .list(merchantId)
    .filter((o) => !o.requiresHolder)
    .sort((a, b) => a.minLoadMinor - b.minLoadMinor)[0];
  let inserted = 0;
  for (let i = 0; offering && i < plan.insert; i++) {
    try {
      placeOrder(ctx, merchantId, {
        kind: 'ISSUE',
        merchantOrderNo: `drift-${ctx.ids.next('trd')}`,
        offeringId: offering.id,
        amountMinor: offering.minLoadMinor,
      });
      inserted++;
    } catch (error) {
      // Refused (the merchant balance ran out, say): nothing was issued, so nothing drifts.
      if (error instanceof ApiError) break;
      throw error;
    }
  }
  const now = ctx.clock.now();
  const pending = ctx.store.orders
    .pending()
    .filter((order) => order.merchantId === merchantId)
    .slice(0, plan.progress);
  for (const order of pending) processOrder(ctx, order, now);
  return { inserted, progressed: pending.length };
}
