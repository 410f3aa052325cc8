import type {
  CardStatus,
  OrderKind,
  TransactionStatus,
  TransactionType,
} from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';

/** A merchant account. Times are epoch milliseconds of the service clock. */
export interface MerchantRecord {
  readonly merchantId: string;
  readonly name: string;
  readonly currency: string;
  readonly balanceMinor: Minor;
  readonly createdAt: number;
}

/** A card offering. */
export interface OfferingRecord {
  readonly id: string;
  readonly merchantId: string;
  readonly position: number;
  readonly name: string;
  readonly network: string;
  readonly type: string;
  readonly currency: string;
  readonly minLoadMinor: Minor;
  readonly maxLoadMinor: Minor;
  readonly issuanceFeeMinor: Minor;
  readonly depositFeePercent: string;
  readonly requiresHolder: boolean;
}

/** A card, sensitive fields included (the service holds them; it never logs them). */
export interface CardRecord {
  readonly cardId: string;
  readonly merchantId: string;
  readonly offeringId: string;
  readonly holderId: string | null;
  readonly lastFour: string;
  readonly status: CardStatus;
  readonly balanceMinor: Minor;
  readonly currency: string;
  readonly createdAt: number;
  readonly cardNumber: string;
  readonly cvv: string;
  readonly expiryMonth: string;
  readonly expiryYear: string;
}

/** A card transaction. `posted` once visible; `appliedEffectMinor` is what it moved so far. */
export interface TransactionRecord {
  readonly transactionId: string;
  readonly merchantId: string;
  readonly cardId: string;
  readonly tradeNo: string;
  readonly type: TransactionType;
  readonly status: TransactionStatus;
  readonly amountMinor: Minor;
  readonly feeMinor: Minor;
  readonly currency: string;
  readonly merchantName: string;
  readonly createdAt: number;
  readonly visibleAt: number;
  readonly posted: boolean;
  readonly appliedEffectMinor: Minor;
  /** A planted malformed amount served instead of `amountMinor` (null normally). */
  readonly amountText?: string | null;
}

/**
 * Where an accepted order stands. `LOST` is only planted: accepted, never processed, its
 * outcome never shown (ORDER_NOT_REFLECTED).
 */
export type OrderState = 'ACCEPTED' | 'COMPLETED' | 'FAILED' | 'LOST';

/** An accepted order. */
export interface OrderRecord {
  readonly orderNo: string;
  readonly merchantId: string;
  readonly merchantOrderNo: string;
  readonly kind: OrderKind;
  readonly cardId: string | null;
  readonly offeringId: string | null;
  readonly amountMinor: Minor | null;
  readonly state: OrderState;
  readonly acceptedAt: number;
  readonly dueAt: number | null;
  readonly outcomeAt: number | null;
  readonly forcedOutcome: 'success' | 'failure' | null;
}

/** What an idempotency key remembers: the operation, its parameters and the answer given. */
export interface IdempotencyRecord {
  readonly merchantId: string;
  readonly merchantOrderNo: string;
  readonly kind: OrderKind;
  readonly params: string;
  readonly responseStatus: number;
  readonly responseBody: string;
}
