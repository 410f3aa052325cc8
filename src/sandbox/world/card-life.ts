import type { OrderKind, TransactionStatus, TransactionType } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import { percentOf } from '../../money/percent.js';
import { transactionEffect } from '../ledger/transaction-effect.js';
import { ISSUER_FEE_NAME } from '../orders/order-processor.js';
import type { SeededRandom } from '../random/seeded-random.js';
import type { CardRecord, OfferingRecord } from '../store/records.js';
import { scaledMinor } from './currency-scale.js';
import { MERCHANT_NAMES, SERVICE_FEE_NAMES } from './merchant-names.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** An order of a generated history, already processed. */
export interface GeneratedOrder {
  readonly orderNo: string;
  readonly merchantOrderNo: string;
  readonly kind: OrderKind;
  readonly cardId: string;
  readonly offeringId: string | null;
  readonly amountMinor: Minor | null;
  readonly acceptedAt: number;
  readonly outcomeAt: number;
  readonly succeeded: boolean;
}

/** A transaction of a generated history. */
export interface GeneratedTransaction {
  readonly transactionId: string;
  readonly cardId: string;
  readonly tradeNo: string;
  readonly type: TransactionType;
  readonly status: TransactionStatus;
  readonly amountMinor: Minor;
  readonly feeMinor: Minor;
  readonly merchantName: string;
  readonly createdAt: number;
  readonly visibleAt: number;
}

/** One card's whole generated life: the card as it stands now, its orders and transactions. */
export interface CardLife {
  readonly card: CardRecord;
  readonly orders: GeneratedOrder[];
  readonly transactions: GeneratedTransaction[];
  /** What the card's orders did to the merchant balance in all. */
  readonly merchantDelta: Minor;
}

/** Where the generator draws ids, numbers and chance from. */
export interface LifeSources {
  readonly random: SeededRandom;
  readonly nextOrderNo: () => string;
  readonly nextTransactionId: () => string;
  readonly nextTradeNo: () => string;
  readonly nextMerchantOrderNo: () => string;
  readonly cardDetails: (
    cardId: string,
    createdAt: number,
  ) => Pick<CardRecord, 'lastFour' | 'cardNumber' | 'cvv' | 'expiryMonth' | 'expiryYear'>;
}

/** The shape of a card's life, decided before it is lived. */
export interface LifePlan {
  readonly cardId: string;
  readonly merchantId: string;
  readonly offering: OfferingRecord;
  readonly issuedAt: number;
  /** Transactions this card should end with (at least 1: its issuance FEE record). */
  readonly transactionBudget: number;
  readonly now: number;
  /** Share of money orders that fail, and of recent card activity that posts late. */
  readonly failureShare: number;
  readonly lateShare: number;
}

interface Purchase {
  readonly tradeNo: string;
  /** When it posts: a refund or reversal before then would show without its purchase. */
  readonly visibleAt: number;
  refundable: Minor;
  /** Amounts refunded so far: a second refund of one of them would read as a duplicate. */
  readonly refunds: Minor[];
}

/**
 * Live one card's history from its issuance to `now`, as the reference model's ledger would
 * have it: every money order leaves its FEE record, purchases only spend what the card holds,
 * no purchase falls in a frozen spell or after a cancellation, PENDING only in the last two
 * days, and a share of recent activity posts late (invisible, not yet in the balance).
 * A clean life has no finding under any check of reference-model section 6.
 */
export function liveCard(plan: LifePlan, sources: LifeSources): CardLife {
  const { random } = sources;
  const { offering, now } = plan;
  const currency = offering.currency;
  const unit = (cents: number) => scaledMinor(cents, currency);
  const orders: GeneratedOrder[] = [];
  const transactions: GeneratedTransaction[] = [];
  const processing = () => random.int(300, 5_000);

  const order = (
    kind: OrderKind,
    at: number,
    amount: Minor | null,
    succeeded: boolean,
  ): GeneratedOrder => {
    const generated: GeneratedOrder = {
      orderNo: sources.nextOrderNo(),
      merchantOrderNo: sources.nextMerchantOrderNo(),
      kind,
      cardId: plan.cardId,
      offeringId: kind === 'ISSUE' ? offering.id : null,
      amountMinor: amount,
      acceptedAt: at,
      outcomeAt: at + processing(),
      succeeded,
    };
    orders.push(generated);
    return generated;
  };
  const txn = (
    fields: Omit<GeneratedTransaction, 'transactionId' | 'cardId' | 'visibleAt'> & {
      visibleAt?: number;
    },
  ) => {
    const generated: GeneratedTransaction = {
      transactionId: sources.nextTransactionId(),
      cardId: plan.cardId,
      visibleAt: fields.visibleAt ?? fields.createdAt,
      ...fields,
    };
    transactions.push(generated);
    return generated;
  };
  const orderFee = (placed: GeneratedOrder, fee: Minor) =>
    txn({
      tradeNo: placed.orderNo,
      type: 'FEE',
      status: placed.succeeded ? 'COMPLETED' : 'DECLINED',
      amountMinor: placed.succeeded ? fee : 0,
      feeMinor: 0,
      merchantName: ISSUER_FEE_NAME,
      createdAt: placed.outcomeAt,
    });

  const loadCeiling = Math.min(
    offering.maxLoadMinor,
    Math.max(offering.minLoadMinor, unit(200_000)),
  );
  const issueAmount = random.int(offering.minLoadMinor, loadCeiling);
  const issued = order('ISSUE', plan.issuedAt, issueAmount, !random.chance(plan.failureShare));
  orderFee(issued, offering.issuanceFeeMinor);
  const base = {
    cardId: plan.cardId,
    merchantId: plan.merchantId,
    offeringId: offering.id,
    holderId: offering.requiresHolder ? `hld_${plan.cardId.slice(5, 17)}` : null,
    currency,
    createdAt: plan.issuedAt,
    ...sources.cardDetails(plan.cardId, plan.issuedAt),
  };
  if (!issued.succeeded) {
    return {
      card: { ...base, status: 'FAILED', balanceMinor: 0 },
      orders,
      transactions,
      merchantDelta: 0,
    };
  }

  let merchantDelta = -issueAmount;
  // `eventual` counts every transaction; `unposted` what late postings (debits only, so
  // never positive) have not yet moved. Spending is bounded by `eventual`.
  let eventual = issueAmount - offering.issuanceFeeMinor;
  let unposted = 0;
  let status: CardRecord['status'] = 'ACTIVE';
  const purchases: Purchase[] = [];
  const endsCancelled = plan.transactionBudget >= 2 && random.chance(0.08);
  const slots = plan.transactionBudget - 1 - (endsCancelled ? 1 : 0);
  const firstFree = issued.outcomeAt + 1_000;
  const lastFree = Math.max(firstFree + 1, now - 10 * 60_000);
  const times = Array.from({ length: slots }, () => random.int(firstFree, lastFree)).sort(
    (a, b) => a - b,
  );

  const activity = (
    at: number,
    fields: Omit<GeneratedTransaction, 'transactionId' | 'cardId' | 'visibleAt' | 'createdAt'>,
  ) => {
    const effect = transactionEffect(
      fields.type,
      fields.status,
      fields.amountMinor,
      fields.feeMinor,
    );
    // Only debits post late: then the balance as posted never dips below the eventual one,
    // whatever order the late ones arrive in.
    const late =
      !endsCancelled && effect < 0 && now - at < 2 * DAY && random.chance(plan.lateShare);
    const visibleAt = late ? at + random.int(10 * 60_000, 2 * DAY) : at;
    eventual += effect;
    if (visibleAt > now) unposted += effect;
    return txn({ ...fields, createdAt: at, visibleAt });
  };
  const purchaseStatus = (at: number): TransactionStatus => {
    const age = now - at;
    if (age > 7 * DAY) return random.chance(0.03) ? 'DECLINED' : 'SETTLED';
    if (age > 2 * DAY) return random.pick(['COMPLETED', 'SETTLED'] as const);
    return random.pick(['PENDING', 'COMPLETED'] as const);
  };
  const deposit = (at: number) => {
    const amount = random.int(unit(1_000), unit(50_000));
    const placed = order('DEPOSIT', at, amount, !random.chance(plan.failureShare));
    const fee = percentOf(amount, offering.depositFeePercent, 'half-up');
    orderFee(placed, fee);
    if (placed.succeeded) {
      merchantDelta -= amount;
      eventual += amount - fee;
    }
  };
  const reverse = (purchase: Purchase, at: number) => {
    const amount = purchase.refundable;
    purchase.refundable = 0;
    activity(at, {
      tradeNo: purchase.tradeNo,
      type: 'REVERSAL',
      status: 'COMPLETED',
      amountMinor: amount,
      feeMinor: 0,
      merchantName: random.pick(MERCHANT_NAMES),
    });
  };

  for (let i = 0; i < times.length; i++) {
    const at = times[i] as number;
    const roll = random.int(0, 99);
    const refundable = purchases.filter((p) => p.refundable > 0 && p.visibleAt <= at);
    if (roll < 50 || (roll < 64 && refundable.length === 0)) {
      const fee = random.chance(0.15) ? unit(random.int(10, 200)) : 0;
      const room = eventual - fee;
      if (room < unit(100)) {
        deposit(at);
        continue;
      }
      const amount = random.int(unit(100), Math.min(room, unit(30_000)));
      const status = purchaseStatus(at);
      const tradeNo = sources.nextTradeNo();
      const purchase = activity(at, {
        tradeNo,
        type: 'PURCHASE',
        status,
        amountMinor: amount,
        feeMinor: fee,
        merchantName: random.pick(MERCHANT_NAMES),
      });
      if (status !== 'DECLINED')
        purchases.push({ tradeNo, visibleAt: purchase.visibleAt, refundable: amount, refunds: [] });
    } else if (roll < 55) {
      activity(at, {
        tradeNo: sources.nextTradeNo(),
        type: 'PURCHASE',
        status: 'DECLINED',
        amountMinor: unit(random.int(100, 90_000)),
        feeMinor: 0,
        merchantName: random.pick(MERCHANT_NAMES),
      });
    } else if (roll < 62) {
      const purchase = random.pick(refundable);
      const amount = random.chance(0.5) ? purchase.refundable : random.int(1, purchase.refundable);
      if (purchase.refunds.includes(amount)) {
        // Same card, type, tradeNo and amount is a DUPLICATE_TRANSACTION: reverse the rest instead.
        reverse(purchase, at);
      } else {
        purchase.refundable -= amount;
        purchase.refunds.push(amount);
        // Refunds settle like purchases: within about a week, never COMPLETED forever.
        const age = now - at;
        const status: TransactionStatus =
          age < DAY
            ? random.pick(['PENDING', 'COMPLETED'] as const)
            : age < 7 * DAY
              ? random.pick(['COMPLETED', 'SETTLED'] as const)
              : 'SETTLED';
        activity(at, {
          tradeNo: purchase.tradeNo,
          type: 'REFUND',
          status,
          amountMinor: amount,
          feeMinor: 0,
          merchantName: random.pick(MERCHANT_NAMES),
        });
      }
    } else if (roll < 64) {
      reverse(random.pick(refundable), at);
    } else if (roll < 70) {
      const fee = random.chance(0.2) && eventual >= unit(50) ? unit(random.int(5, 50)) : 0;
      activity(at, {
        tradeNo: sources.nextTradeNo(),
        type: 'VERIFICATION',
        status: random.chance(0.9) ? 'COMPLETED' : 'DECLINED',
        amountMinor: 0,
        feeMinor: fee,
        merchantName: random.pick(MERCHANT_NAMES),
      });
    } else if (roll < 74 && eventual >= unit(500)) {
      activity(at, {
        tradeNo: sources.nextTradeNo(),
        type: 'FEE',
        status: 'COMPLETED',
        amountMinor: unit(random.int(100, 500)),
        feeMinor: 0,
        merchantName: random.pick(SERVICE_FEE_NAMES),
      });
    } else if (roll < 90 || eventual < unit(100)) {
      deposit(at);
    } else {
      const amount = random.int(unit(100), eventual);
      const placed = order('WITHDRAW', at, amount, !random.chance(plan.failureShare));
      orderFee(placed, 0);
      if (placed.succeeded) {
        merchantDelta += amount;
        eventual -= amount;
      }
    }
    // A frozen spell between two slots: nothing happens on the card while it lasts.
    const next = times[i + 1];
    if (next !== undefined && next - at > 4 * HOUR && random.chance(0.03)) {
      const freezeAt = at + 60_000;
      const frozen = order('FREEZE', freezeAt, null, true);
      order('UNFREEZE', Math.max(frozen.outcomeAt + 1_000, next - 2 * HOUR), null, true);
    }
  }

  const lastAt = Math.max(issued.outcomeAt, ...transactions.map((t) => t.createdAt));
  if (endsCancelled) {
    const cancelled = order('CANCEL', Math.min(lastAt + 60_000, now - 2 * 60_000), null, true);
    orderFee(cancelled, 0);
    merchantDelta += eventual;
    eventual = 0;
    status = 'CANCELLED';
  } else if (random.chance(0.03) && now - lastAt > 3 * HOUR) {
    order('FREEZE', lastAt + 60_000, null, true);
    status = 'FROZEN';
  }
  return {
    card: { ...base, status, balanceMinor: eventual - unposted },
    orders,
    transactions,
    merchantDelta,
  };
}
