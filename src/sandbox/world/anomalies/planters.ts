import { currencyExponent } from '../../../money/currency.js';
import { formatMinor } from '../../../money/decimal.js';
import { percentOf } from '../../../money/percent.js';
import type { SeededRandom } from '../../random/seeded-random.js';
import type { MerchantRecord, OfferingRecord } from '../../store/records.js';
import { scaledMinor } from '../currency-scale.js';
import type { CheckCode, PlantedFinding } from '../ground-truth.js';
import { FreshCard, type PlantingKit } from './fresh-card.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** What a planter gets: where to write, whose card to make, and its own random stream. */
export interface PlantingSite {
  readonly kit: PlantingKit;
  readonly merchant: MerchantRecord;
  /** An offering of the merchant that needs no holder and charges an issuance fee if any does. */
  readonly offering: OfferingRecord;
  readonly offerings: readonly OfferingRecord[];
  readonly random: SeededRandom;
}

/** Plants one instance of a finding and returns it, knock-on findings included. */
export type Planter = (site: PlantingSite) => PlantedFinding[];

/** A currency with the same exponent as `currency`, for a mismatch that keeps amounts comparable. */
function sibling(currency: string): string {
  const pairs: Record<string, string> = {
    USD: 'EUR',
    EUR: 'USD',
    GBP: 'USD',
    JPY: 'KRW',
    KRW: 'JPY',
    KWD: 'BHD',
    BHD: 'KWD',
  };
  const exponent = currencyExponent(currency);
  const others = exponent === 2 ? ['USD', 'EUR'] : exponent === 3 ? ['KWD', 'BHD'] : ['XOF', 'JPY'];
  return pairs[currency] ?? (others.find((other) => other !== currency) as string);
}

function card(
  site: PlantingSite,
  options: ConstructorParameters<typeof FreshCard>[4] = {},
  issuedAgo = 2 * DAY,
): FreshCard {
  return new FreshCard(site.kit, site.merchant, site.offering, site.kit.now - issuedAgo, options);
}

function unit(site: PlantingSite, cents: number): number {
  return scaledMinor(cents, site.merchant.currency);
}

function finding(
  site: PlantingSite,
  check: CheckCode,
  ids: Omit<PlantedFinding, 'check' | 'merchantId'>,
): PlantedFinding {
  return { check, merchantId: site.merchant.merchantId, ...ids };
}

/**
 * One planter per code the upstream side can cause. Each builds a fresh card whose history is
 * clean but for the one planted fault, so the manifest holds exactly the findings the model
 * implies.
 */
export const PLANTERS: Readonly<Partial<Record<CheckCode, Planter>>> = {
  CARD_BALANCE_MISMATCH: (site) => {
    const c = card(site);
    const skew = unit(site, site.random.int(1, 5_000));
    c.skewBalance(skew);
    c.commit();
    return [
      finding(site, 'CARD_BALANCE_MISMATCH', {
        cardId: c.cardId,
        detail: `balance raised by ${skew} minor units with no transaction`,
      }),
    ];
  },

  ISSUANCE_FEE_MISMATCH: (site) => {
    const wrong = site.offering.issuanceFeeMinor + unit(site, site.random.int(1, 300));
    const c = card(site, { issuanceFee: wrong });
    c.commit();
    return [
      finding(site, 'ISSUANCE_FEE_MISMATCH', {
        cardId: c.cardId,
        orderNo: c.issueOrder.orderNo,
        merchantOrderNo: c.issueOrder.merchantOrderNo,
        transactionId: c.issueFee.transactionId,
        detail: `issuance fee ${wrong} charged, offering says ${site.offering.issuanceFeeMinor}`,
      }),
    ];
  },

  DEPOSIT_FEE_MISMATCH: (site) => {
    const c = card(site);
    // A rounding slip: one minor unit off the half-up fee.
    const amount = unit(site, site.random.int(1_000, 20_000));
    const right = percentOf(amount, site.offering.depositFeePercent, 'half-up');
    const order = c.deposit(site.kit.now - DAY, amount, right + 1);
    c.commit();
    return [
      finding(site, 'DEPOSIT_FEE_MISMATCH', {
        cardId: c.cardId,
        orderNo: order.orderNo,
        merchantOrderNo: order.merchantOrderNo,
        detail: `deposit fee ${right + 1} charged, ${right} due`,
      }),
    ];
  },

  WITHDRAWAL_FEE_MISMATCH: (site) => {
    const c = card(site);
    const fee = unit(site, site.random.int(1, 300));
    const order = c.withdraw(site.kit.now - DAY, unit(site, 100), fee);
    c.commit();
    return [
      finding(site, 'WITHDRAWAL_FEE_MISMATCH', {
        cardId: c.cardId,
        orderNo: order.orderNo,
        merchantOrderNo: order.merchantOrderNo,
        detail: `withdrawal fee ${fee} charged, 0 due`,
      }),
    ];
  },

  ORDER_NOT_REFLECTED: (site) => {
    const c = card(site);
    const freeze = site.random.chance(0.5);
    const order = freeze
      ? c.lostOrder('FREEZE', site.kit.now - 3 * HOUR, null)
      : c.lostOrder('DEPOSIT', site.kit.now - 3 * HOUR, unit(site, site.random.int(1_000, 10_000)));
    c.commit();
    return [
      finding(site, 'ORDER_NOT_REFLECTED', {
        cardId: c.cardId,
        orderNo: order.orderNo,
        merchantOrderNo: order.merchantOrderNo,
        detail: freeze
          ? 'FREEZE accepted 3 h ago, card still ACTIVE'
          : 'DEPOSIT accepted 3 h ago, no outcome',
      }),
    ];
  },

  LOAD_OUT_OF_BOUNDS: (site) => {
    const offering =
      [...site.offerings]
        .filter((o) => !o.requiresHolder)
        .sort((a, b) => a.maxLoadMinor - b.maxLoadMinor)[0] ?? site.offering;
    const amount = offering.maxLoadMinor + unit(site, site.random.int(1, 10_000));
    const c = new FreshCard(site.kit, site.merchant, offering, site.kit.now - 2 * DAY, { amount });
    c.commit();
    return [
      finding(site, 'LOAD_OUT_OF_BOUNDS', {
        cardId: c.cardId,
        orderNo: c.issueOrder.orderNo,
        merchantOrderNo: c.issueOrder.merchantOrderNo,
        detail: `initial load ${amount} above the offering's maximum ${offering.maxLoadMinor}`,
      }),
    ];
  },

  CURRENCY_MISMATCH: (site) => {
    const c = card(site);
    const currency = sibling(site.merchant.currency);
    const txn = c.transaction({
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: unit(site, 500),
      at: site.kit.now - DAY,
      currency,
    });
    c.commit();
    return [
      finding(site, 'CURRENCY_MISMATCH', {
        cardId: c.cardId,
        transactionId: txn.transactionId,
        detail: `purchase in ${currency} on a ${site.merchant.currency} card`,
      }),
    ];
  },

  DUPLICATE_TRANSACTION: (site) => {
    const c = card(site);
    const at = site.kit.now - DAY;
    const original = c.transaction({
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: unit(site, 700),
      at,
    });
    const copy = c.transaction({
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: unit(site, 700),
      at: at + 1_000,
      tradeNo: original.tradeNo,
    });
    c.commit();
    return [
      finding(site, 'DUPLICATE_TRANSACTION', {
        cardId: c.cardId,
        transactionId: copy.transactionId,
        tradeNo: original.tradeNo,
        detail: `purchase ${original.transactionId} booked twice`,
      }),
    ];
  },

  OVER_REFUND: (site) => {
    const c = card(site);
    const at = site.kit.now - DAY;
    const purchase = c.transaction({
      type: 'PURCHASE',
      status: 'SETTLED',
      amount: unit(site, 800),
      at,
    });
    c.transaction({
      type: 'REFUND',
      status: 'COMPLETED',
      amount: unit(site, 800) + unit(site, site.random.int(1, 400)),
      at: at + HOUR,
      tradeNo: purchase.tradeNo,
    });
    c.commit();
    return [
      finding(site, 'OVER_REFUND', {
        cardId: c.cardId,
        tradeNo: purchase.tradeNo,
        detail: 'refund exceeds the purchase',
      }),
    ];
  },

  ACTIVITY_ON_INACTIVE_CARD: (site) => {
    const c = card(site);
    const frozenAt = site.kit.now - 6 * HOUR;
    c.freeze(frozenAt);
    const txn = c.transaction({
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: unit(site, 300),
      at: frozenAt + 2 * HOUR,
    });
    c.commit();
    return [
      finding(site, 'ACTIVITY_ON_INACTIVE_CARD', {
        cardId: c.cardId,
        transactionId: txn.transactionId,
        detail: 'purchase 2 h after the card was frozen',
      }),
    ];
  },

  NEGATIVE_BALANCE: (site) => {
    const c = card(site);
    const txn = c.transaction({
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: c.balance + unit(site, site.random.int(100, 5_000)),
      at: site.kit.now - DAY,
    });
    c.commit();
    return [
      finding(site, 'NEGATIVE_BALANCE', {
        cardId: c.cardId,
        transactionId: txn.transactionId,
        detail: 'purchase beyond the balance let through',
      }),
    ];
  },

  ORPHAN_TRANSACTION: (site) => {
    const c = card(site);
    const ghost = site.kit.nextCardId();
    const orphan = {
      transactionId: site.kit.nextTransactionId(),
      cardId: ghost,
      tradeNo: site.kit.nextTradeNo(),
      type: 'PURCHASE' as const,
      status: 'COMPLETED' as const,
      amountMinor: unit(site, 450),
      feeMinor: 0,
      merchantName: 'Ghost Merchant',
      createdAt: site.kit.now - DAY,
      visibleAt: site.kit.now - DAY,
    };
    c.commit();
    // Written against a card record that exists nowhere: only the merchant id and currency are used.
    site.kit.writer.writeTransaction({ ...c.snapshot(), cardId: ghost }, orphan, site.kit.now);
    return [
      finding(site, 'ORPHAN_TRANSACTION', {
        cardId: ghost,
        transactionId: orphan.transactionId,
        detail: 'transaction on a card the merchant does not have',
      }),
    ];
  },

  STALE_PENDING: (site) => {
    const c = card(site, {}, 14 * DAY);
    const txn = c.transaction({
      type: 'PURCHASE',
      status: 'PENDING',
      amount: unit(site, 250),
      at: site.kit.now - 10 * DAY,
    });
    c.commit();
    return [
      finding(site, 'STALE_PENDING', {
        cardId: c.cardId,
        transactionId: txn.transactionId,
        detail: 'purchase PENDING for 10 days',
      }),
    ];
  },

  PRECISION_VIOLATION: (site) => {
    const c = card(site);
    const exponent = currencyExponent(site.merchant.currency);
    const amountText = `${formatMinor(unit(site, 1_234), exponent)}${exponent === 0 ? '.5' : '5'}`;
    const txn = c.transaction({
      type: 'PURCHASE',
      status: 'DECLINED',
      amount: unit(site, 1_234),
      at: site.kit.now - DAY,
      amountText,
    });
    c.commit();
    return [
      finding(site, 'PRECISION_VIOLATION', {
        cardId: c.cardId,
        transactionId: txn.transactionId,
        detail: `amount ${amountText} has more digits than ${site.merchant.currency} allows`,
      }),
    ];
  },

  UNJOURNALED_CARD: (site) => {
    const c = card(site, { journaled: false });
    c.commit();
    return [
      finding(site, 'UNJOURNALED_CARD', {
        cardId: c.cardId,
        detail: 'card issued without an order in the merchant journal',
      }),
    ];
  },
};

/** Codes a single generated world cannot hold, and why. */
export const NOT_PLANTED: Readonly<Partial<Record<CheckCode, string>>> = {
  MERCHANT_BALANCE_MISMATCH:
    'needs two balance snapshots, i.e. two syncs: plant it between them with POST /_control/merchants/:id/unjournaled-movement, which answers with the finding to expect',
};
