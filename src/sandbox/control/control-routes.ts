import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TransactionType } from '../../contract/enums.js';
import { isKnownCurrency } from '../../money/currency.js';
import type { Minor } from '../../money/decimal.js';
import { changeTransactionStatus, recordTransaction } from '../activity/card-activity.js';
import { CLOCK_OFFSET_KEY, LATEST_INSTANT, type MovableClock } from '../clock.js';
import type { DueEvents } from '../due-events.js';
import { ApiError } from '../http/api-error.js';
import { hashKey } from '../http/authentication.js';
import { money, presentCard, presentTransaction, timestamp } from '../http/presenters.js';
import { requestAmount, requestInstant } from '../http/request-values.js';
import { canMove, canStartIn } from '../ledger/transaction-lifecycle.js';
import { createKey } from '../merchant-keys.js';
import { processOrder } from '../orders/order-processor.js';
import type { SandboxContext } from '../sandbox-context.js';
import { writeMeta } from '../store/database.js';
import type { CardRecord, TransactionRecord } from '../store/records.js';
import { plantMerchantBalanceDrift } from '../world/anomalies/merchant-balance-drift.js';
import { DEFAULT_STATUS, networkDecision } from './card-network.js';
import {
  AdvanceClockBody,
  CardParams,
  CardStatusBody,
  MerchantParams,
  PostTransactionBody,
  ProcessOrdersBody,
  RotateKeyBody,
  TopUpBody,
  TransactionParams,
  TransactionStatusBody,
  UnjournaledMovementBody,
} from './control-schemas.js';

const options = { config: { auth: 'control' as const } } as const;

function controlled<S extends object>(schema: S) {
  return { ...options, schema: { ...schema, hide: true } };
}

function presentInternal(txn: TransactionRecord) {
  return { ...presentTransaction(txn), visibleAt: timestamp(txn.visibleAt), posted: txn.posted };
}

/**
 * The control surface under `/_control`: what a dashboard, the card network and the passing of
 * time do to the service. Off unless enabled; it takes `x-control-token`, never a merchant key.
 */
export function registerControlRoutes(
  app: FastifyInstance,
  ctx: SandboxContext,
  clock: MovableClock,
  events: DueEvents,
): void {
  const merchantOr404 = (merchantId: string) => {
    const merchant = ctx.store.merchants.get(merchantId);
    if (!merchant) throw new ApiError('NOT_FOUND', `merchant ${merchantId} not found`);
    return merchant;
  };
  const cardOr404 = (cardId: string) => {
    const card = ctx.store.cards.get(cardId);
    if (!card) throw new ApiError('CARD_NOT_FOUND', `card ${cardId} not found`);
    return card;
  };

  app.get('/_control/clock', controlled({}), async () => ({
    now: timestamp(clock.now()),
    offsetMs: clock.offsetMs,
  }));

  app.post(
    '/_control/clock',
    controlled({ body: AdvanceClockBody }),
    async (request: FastifyRequest) => {
      const { advanceMs } = request.body as AdvanceClockBody;
      // Past it, every timestamp the service writes (a record's, the Date header) is invalid:
      // each later answer that carries one would be a 500, and a state directory keeps the clock.
      if (!clock.canAdvance(advanceMs)) {
        throw new ApiError('VALIDATION_FAILED', [
          `advanceMs would move the service clock past ${timestamp(LATEST_INSTANT)}`,
        ]);
      }
      clock.advance(advanceMs);
      writeMeta(ctx.store.db, CLOCK_OFFSET_KEY, String(clock.offsetMs));
      const applied = events.runDue();
      return { now: timestamp(clock.now()), offsetMs: clock.offsetMs, eventsApplied: applied };
    },
  );

  app.post(
    '/_control/orders/process',
    controlled({ body: ProcessOrdersBody }),
    async (request: FastifyRequest) => {
      const body = (request.body ?? {}) as ProcessOrdersBody;
      const pending = ctx.store.orders
        .pending()
        .filter((o) => body.orderNo === undefined || o.orderNo === body.orderNo);
      if (body.orderNo !== undefined && pending.length === 0) {
        throw new ApiError('NOT_FOUND', `no pending order ${body.orderNo}`);
      }
      const now = clock.now();
      const processed = pending.map((order) => ({
        orderNo: order.orderNo,
        kind: order.kind,
        outcome: processOrder(ctx, order, now, body.outcome),
      }));
      events.arm();
      return { processed };
    },
  );

  app.post(
    '/_control/merchants/:merchantId/top-up',
    controlled({ params: MerchantParams, body: TopUpBody }),
    async (request: FastifyRequest) => {
      const { merchantId } = request.params as { merchantId: string };
      const merchant = merchantOr404(merchantId);
      const amount = requestAmount(
        'amount',
        (request.body as TopUpBody).amount,
        merchant.currency,
        false,
      );
      ctx.store.atomically(() => {
        refuseBeyondExact(ctx, merchantId, amount);
        ctx.store.merchants.adjustBalance(merchantId, amount);
      });
      const after = merchantOr404(merchantId);
      return {
        merchantId,
        balance: money(after.balanceMinor, after.currency),
        currency: after.currency,
      };
    },
  );

  app.post(
    '/_control/merchants/:merchantId/unjournaled-movement',
    controlled({ params: MerchantParams, body: UnjournaledMovementBody }),
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { merchantId } = request.params as { merchantId: string };
      const merchant = merchantOr404(merchantId);
      const body = request.body as UnjournaledMovementBody;
      const magnitude = requestAmount('amount', body.amount, merchant.currency, false);
      const finding = ctx.store.atomically(() => {
        if (body.direction === 'credit') refuseBeyondExact(ctx, merchantId, magnitude);
        else refuseBelowExact(ctx, merchantId, magnitude);
        return plantMerchantBalanceDrift(
          ctx,
          merchantId,
          body.direction === 'credit' ? magnitude : -magnitude,
        );
      });
      return reply.code(201).send({ finding });
    },
  );

  app.post(
    '/_control/merchants/:merchantId/keys',
    controlled({ params: MerchantParams }),
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { merchantId } = request.params as { merchantId: string };
      merchantOr404(merchantId);
      return reply.code(201).send({ merchantId, apiKey: createKey(ctx, merchantId) });
    },
  );

  app.post(
    '/_control/merchants/:merchantId/keys/rotate',
    controlled({ params: MerchantParams, body: RotateKeyBody }),
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { merchantId } = request.params as { merchantId: string };
      merchantOr404(merchantId);
      const { apiKey } = (request.body ?? {}) as RotateKeyBody;
      const apiKeyNew = ctx.store.atomically(() => {
        const now = ctx.clock.now();
        if (apiKey === undefined) ctx.store.merchants.revokeAllKeys(merchantId, now);
        else if (!ctx.store.merchants.revokeKey(merchantId, hashKey(apiKey), now)) {
          throw new ApiError('NOT_FOUND', 'that key is not a live key of this merchant');
        }
        return createKey(ctx, merchantId);
      });
      return reply.code(201).send({ merchantId, apiKey: apiKeyNew });
    },
  );

  app.post(
    '/_control/cards/:cardId/status',
    controlled({ params: CardParams, body: CardStatusBody }),
    async (request: FastifyRequest) => {
      const card = cardOr404((request.params as { cardId: string }).cardId);
      const { status } = request.body as CardStatusBody;
      const allowed =
        status === 'BLOCKED'
          ? card.status !== 'CANCELLED' && card.status !== 'FAILED'
          : card.status === 'BLOCKED';
      if (!allowed)
        throw new ApiError(
          'INVALID_CARD_STATE',
          `card ${card.cardId} is ${card.status}; cannot set ${status}`,
        );
      ctx.store.cards.setStatus(card.cardId, status);
      return { data: presentCard(cardOr404(card.cardId)) };
    },
  );

  app.post(
    '/_control/cards/:cardId/transactions',
    controlled({ params: CardParams, body: PostTransactionBody }),
    async (request: FastifyRequest, reply: FastifyReply) => {
      const card = cardOr404((request.params as { cardId: string }).cardId);
      const body = request.body as PostTransactionBody;
      const currency = body.currency ?? card.currency;
      if (!isKnownCurrency(currency))
        throw new ApiError('VALIDATION_FAILED', [`currency ${currency} is not known`]);
      const status = body.status ?? DEFAULT_STATUS[body.type];
      if (!canStartIn(body.type, status)) {
        throw new ApiError('VALIDATION_FAILED', [
          `a ${body.type} cannot start in status ${status}`,
        ]);
      }
      const now = clock.now();
      const createdAt =
        body.createdAt === undefined ? now : requestInstant('createdAt', body.createdAt);
      if (createdAt > now)
        throw new ApiError('VALIDATION_FAILED', ['createdAt must not be in the future']);
      const visibleAt =
        body.visibleAt === undefined ? createdAt : requestInstant('visibleAt', body.visibleAt);
      const amountMinor = requestAmount('amount', body.amount, currency, true);
      const feeMinor = body.fee === undefined ? 0 : requestAmount('fee', body.fee, currency, true);
      const txn = ctx.store.atomically(() => {
        refuseBeyondExactCard(ctx, card, body.type, amountMinor, feeMinor);
        const decided = body.force
          ? { status }
          : networkDecision(ctx, card, {
              type: body.type,
              status,
              amountMinor,
              feeMinor,
              tradeNo: body.tradeNo,
            });
        return recordTransaction(ctx, {
          cardId: card.cardId,
          type: body.type,
          status: decided.status,
          amountMinor,
          feeMinor,
          currency,
          merchantName: body.merchantName ?? 'Test merchant',
          tradeNo: body.tradeNo ?? ctx.ids.next('trd'),
          createdAt,
          visibleAt,
        });
      });
      events.arm();
      return reply.code(201).send({ data: presentInternal(txn) });
    },
  );

  app.post(
    '/_control/transactions/:transactionId/status',
    controlled({ params: TransactionParams, body: TransactionStatusBody }),
    async (request: FastifyRequest) => {
      const { transactionId } = request.params as { transactionId: string };
      const { status } = request.body as TransactionStatusBody;
      const updated = ctx.store.atomically(() => {
        const txn = ctx.store.transactions.get(transactionId);
        if (!txn) throw new ApiError('NOT_FOUND', `transaction ${transactionId} not found`);
        if (!canMove(txn.type, txn.status, status)) {
          throw new ApiError('VALIDATION_FAILED', [
            `a ${txn.type} cannot move from ${txn.status} to ${status}`,
          ]);
        }
        changeTransactionStatus(ctx, txn, status);
        return ctx.store.transactions.get(transactionId) as TransactionRecord;
      });
      return { data: presentInternal(updated) };
    },
  );
}

/**
 * Refuse money coming in that would take what `merchantId` holds (its balance, its cards and its
 * orders on their way) past 2^53 − 1 minor units: beyond, a balance is no longer counted exactly
 * and could not be written as the wire's decimal text.
 * @throws ApiError VALIDATION_FAILED, before anything is changed.
 */
function refuseBeyondExact(ctx: SandboxContext, merchantId: string, amount: Minor): void {
  const held = ctx.store.merchants.heldMinor(merchantId);
  if (held + BigInt(amount) > BigInt(Number.MAX_SAFE_INTEGER))
    throw new ApiError('VALIDATION_FAILED', [
      `amount would take the money merchant ${merchantId} holds past ${Number.MAX_SAFE_INTEGER} minor units, beyond what the service counts exactly`,
    ]);
}

/**
 * Refuse a debit that would take `merchantId`'s balance below −(2^53 − 1) minor units: beyond,
 * the balance is no longer counted exactly and every later read of it would be a 500.
 * @throws ApiError VALIDATION_FAILED, before anything is changed.
 */
function refuseBelowExact(ctx: SandboxContext, merchantId: string, amount: Minor): void {
  const balance = BigInt(ctx.store.merchants.get(merchantId)?.balanceMinor ?? 0);
  if (balance - BigInt(amount) < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new ApiError('VALIDATION_FAILED', [
      `amount would take merchant ${merchantId}'s balance below -${Number.MAX_SAFE_INTEGER} minor units, beyond what the service counts exactly`,
    ]);
}

/**
 * Refuse a transaction that, once it posts, could take its card past what the service counts
 * exactly: a REFUND or REVERSAL brings money in (+amount, as a top-up does, so what the merchant
 * holds must stay within 2^53 − 1), and any type takes its debit from the card (a PURCHASE
 * amount + fee, a FEE its amount, the others their fee), which must leave the balance no lower
 * than −(2^53 − 1). Only a forced one can come near: the network's own rules refuse a refund
 * beyond what was bought and decline a purchase beyond the balance.
 * @throws ApiError VALIDATION_FAILED, before anything is changed.
 */
function refuseBeyondExactCard(
  ctx: SandboxContext,
  card: CardRecord,
  type: TransactionType,
  amount: Minor,
  fee: Minor,
): void {
  if (type === 'REFUND' || type === 'REVERSAL') refuseBeyondExact(ctx, card.merchantId, amount);
  const debit =
    type === 'PURCHASE' ? BigInt(amount) + BigInt(fee) : BigInt(type === 'FEE' ? amount : fee);
  if (BigInt(card.balanceMinor) - debit < -BigInt(Number.MAX_SAFE_INTEGER))
    throw new ApiError('VALIDATION_FAILED', [
      `amount and fee would take card ${card.cardId}'s balance below -${Number.MAX_SAFE_INTEGER} minor units, beyond what the service counts exactly`,
    ]);
}
