import type { OrderReference } from '../../contract/index.js';
import { availableBalance } from '../control/card-network.js';
import { ApiError } from '../http/api-error.js';
import { issueCardDetails } from '../ledger/card-details.js';
import type { SandboxContext } from '../sandbox-context.js';
import type { CardRecord, MerchantRecord, OrderRecord } from '../store/records.js';
import { type OrderRequest, orderParams } from './order-request.js';

/** What the desk answers to an order: the 201 body, and whether it was a replay. */
export interface OrderAnswer {
  readonly reference: OrderReference;
  readonly replayed: boolean;
}

/** Errors that are remembered against the order reference: everything but bad input and 429. */
function isRemembered(error: ApiError): boolean {
  return error.statusCode !== 400 && error.statusCode !== 429 && error.code !== 'DUPLICATE_ORDER';
}

/**
 * Take an order: replay it if its `merchantOrderNo` was seen with the same operation and
 * parameters, refuse it if seen with others, otherwise check it against the card state rules
 * and the ledger and accept it (reference-model sections 1-3). Refusals other than bad input
 * are remembered, so a retry gets the same answer.
 * @throws ApiError with the refusal.
 */
export function placeOrder(
  ctx: SandboxContext,
  merchantId: string,
  request: OrderRequest,
): OrderAnswer {
  const params = orderParams(request);
  try {
    return ctx.store.atomically(() => {
      const merchant = ctx.store.merchants.get(merchantId);
      if (!merchant) throw new Error(`no merchant ${merchantId}`);
      const seen = ctx.store.orders.idempotency(merchant.merchantId, request.merchantOrderNo);
      if (seen) {
        if (seen.kind !== request.kind || seen.params !== params) {
          throw new ApiError(
            'DUPLICATE_ORDER',
            `merchantOrderNo ${request.merchantOrderNo} was already used for a different ${seen.kind} order`,
          );
        }
        return replay(seen.responseStatus, seen.responseBody);
      }
      const reference = accept(ctx, merchant, request);
      ctx.store.orders.remember(
        {
          merchantId: merchant.merchantId,
          merchantOrderNo: request.merchantOrderNo,
          kind: request.kind,
          params,
          responseStatus: 201,
          responseBody: JSON.stringify({ data: reference }),
        },
        ctx.clock.now(),
      );
      return { reference, replayed: false };
    });
  } catch (error) {
    if (error instanceof ApiError && isRemembered(error)) {
      ctx.store.orders.remember(
        {
          merchantId,
          merchantOrderNo: request.merchantOrderNo,
          kind: request.kind,
          params,
          responseStatus: error.statusCode,
          responseBody: JSON.stringify(error.toBody()),
        },
        ctx.clock.now(),
      );
    }
    throw error;
  }
}

/** Raised to answer a replayed refusal exactly as the first time. */
export class ReplayedRefusal extends Error {
  readonly statusCode: number;
  readonly body: unknown;

  constructor(statusCode: number, body: unknown) {
    super(`replayed refusal ${statusCode}`);
    this.statusCode = statusCode;
    this.body = body;
  }
}

function replay(status: number, body: string): OrderAnswer {
  const parsed = JSON.parse(body) as { data: OrderReference };
  if (status !== 201) throw new ReplayedRefusal(status, parsed);
  return { reference: parsed.data, replayed: true };
}

function accept(
  ctx: SandboxContext,
  merchant: MerchantRecord,
  request: OrderRequest,
): OrderReference {
  const now = ctx.clock.now();
  let cardId = request.cardId ?? null;
  switch (request.kind) {
    case 'ISSUE':
      cardId = acceptIssue(ctx, merchant, request, now).cardId;
      break;
    case 'DEPOSIT': {
      const amount = requireAmount(request);
      requireCardIn(ctx, merchant, request, 'ACTIVE');
      if (merchant.balanceMinor < amount) {
        throw new ApiError('INSUFFICIENT_BALANCE', 'merchant balance is too low for this deposit');
      }
      ctx.store.merchants.adjustBalance(merchant.merchantId, -amount);
      break;
    }
    case 'WITHDRAW': {
      const amount = requireAmount(request);
      const card = requireCardIn(ctx, merchant, request, 'ACTIVE');
      // Debits still to post were authorised when created: the money is held for them.
      if (availableBalance(ctx, card) < amount) {
        throw new ApiError(
          'INSUFFICIENT_CARD_BALANCE',
          'card balance is too low for this withdrawal',
        );
      }
      break;
    }
    case 'FREEZE':
      ctx.store.cards.setStatus(requireCardIn(ctx, merchant, request, 'ACTIVE').cardId, 'FREEZING');
      break;
    case 'UNFREEZE':
      ctx.store.cards.setStatus(
        requireCardIn(ctx, merchant, request, 'FROZEN').cardId,
        'UNFREEZING',
      );
      break;
    case 'CANCEL':
      ctx.store.cards.setStatus(
        requireCardIn(ctx, merchant, request, 'ACTIVE').cardId,
        'CANCELLING',
      );
      break;
  }
  const order: OrderRecord = {
    orderNo: ctx.ids.next('ord'),
    merchantId: merchant.merchantId,
    merchantOrderNo: request.merchantOrderNo,
    kind: request.kind,
    cardId,
    offeringId: request.offeringId ?? null,
    amountMinor: request.amountMinor ?? null,
    state: 'ACCEPTED',
    acceptedAt: now,
    dueAt: ctx.processing.kind === 'delay' ? now + ctx.processing.ms : null,
    outcomeAt: null,
    forcedOutcome: null,
  };
  ctx.store.orders.insert(order);
  return { orderNo: order.orderNo, merchantOrderNo: order.merchantOrderNo };
}

function acceptIssue(
  ctx: SandboxContext,
  merchant: MerchantRecord,
  request: OrderRequest,
  now: number,
): CardRecord {
  const amount = requireAmount(request);
  const offering = ctx.store.offerings.get(merchant.merchantId, request.offeringId ?? '');
  if (!offering)
    throw new ApiError('OFFERING_NOT_FOUND', `offering ${request.offeringId} not found`);
  if (offering.requiresHolder && !request.holderId) {
    throw new ApiError('HOLDER_REQUIRED', `offering ${offering.id} requires a holderId`);
  }
  if (amount < offering.minLoadMinor || amount > offering.maxLoadMinor) {
    throw new ApiError('LOAD_OUT_OF_BOUNDS', `initial load is outside the offering's limits`);
  }
  if (merchant.balanceMinor < amount) {
    throw new ApiError('INSUFFICIENT_BALANCE', 'merchant balance is too low for this issuance');
  }
  ctx.store.merchants.adjustBalance(merchant.merchantId, -amount);
  const cardId = ctx.ids.next('card');
  const card: CardRecord = {
    cardId,
    merchantId: merchant.merchantId,
    offeringId: offering.id,
    holderId: request.holderId ?? null,
    status: 'PENDING',
    balanceMinor: 0,
    currency: offering.currency,
    createdAt: now,
    ...issueCardDetails(ctx.seed, cardId, now),
  };
  ctx.store.cards.insert(card);
  return card;
}

function requireAmount(request: OrderRequest): number {
  if (request.amountMinor === undefined) throw new Error(`${request.kind} order without an amount`);
  return request.amountMinor;
}

function requireCardIn(
  ctx: SandboxContext,
  merchant: MerchantRecord,
  request: OrderRequest,
  status: CardRecord['status'],
): CardRecord {
  const card = ctx.store.cards.getOwned(merchant.merchantId, request.cardId ?? '');
  if (!card) throw new ApiError('CARD_NOT_FOUND', `card ${request.cardId} not found`);
  if (card.status !== status) {
    throw new ApiError(
      'INVALID_CARD_STATE',
      `${request.kind} needs a card in status ${status}; card ${card.cardId} is ${card.status}`,
    );
  }
  return card;
}
