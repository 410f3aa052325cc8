import { type Static, Type } from 'typebox';
import { CardStatus, TransactionStatus, TransactionType } from './enums.js';
import { AmountText, CurrencyCode, Identifier, PercentText, Timestamp } from './primitives.js';

/** CardResponse. */
export const Card = Type.Object(
  {
    cardId: Identifier,
    merchantId: Identifier,
    cardOfferingId: Identifier,
    lastFour: Type.String({ pattern: '^\\d{4}$' }),
    status: CardStatus,
    balance: AmountText,
    currency: CurrencyCode,
    createdAt: Timestamp,
  },
  { title: 'Card' },
);
export type Card = Static<typeof Card>;

/** OrderResponse: the answer to every order (POST). */
export const OrderReference = Type.Object(
  { orderNo: Identifier, merchantOrderNo: Type.String() },
  { title: 'OrderReference' },
);
export type OrderReference = Static<typeof OrderReference>;

/** SensitiveCardInfoResponse. */
export const SensitiveCardInfo = Type.Object(
  {
    cardNumber: Type.String({ pattern: '^\\d{12,19}$' }),
    cvv: Type.String({ pattern: '^\\d{3,4}$' }),
    // The interface says only "month" and "year": "3" and "28" are read as well as "03" and
    // "2028" (the sandbox sends the latter).
    expiryMonth: Type.String({ pattern: '^(0?[1-9]|1[0-2])$' }),
    expiryYear: Type.String({ pattern: '^(\\d{2}|\\d{4})$' }),
  },
  { title: 'SensitiveCardInfo' },
);
export type SensitiveCardInfo = Static<typeof SensitiveCardInfo>;

/** CardTransactionResponse. */
export const Transaction = Type.Object(
  {
    transactionId: Identifier,
    cardId: Identifier,
    tradeNo: Type.String(),
    type: TransactionType,
    status: TransactionStatus,
    amount: AmountText,
    currency: CurrencyCode,
    merchantName: Type.String(),
    fee: AmountText,
    createdAt: Timestamp,
  },
  { title: 'Transaction' },
);
export type Transaction = Static<typeof Transaction>;

/** MerchantBalanceResponse. */
export const MerchantBalance = Type.Object(
  { balance: AmountText, currency: CurrencyCode },
  { title: 'MerchantBalance' },
);
export type MerchantBalance = Static<typeof MerchantBalance>;

/** CardOfferingResponse item. */
export const Offering = Type.Object(
  {
    id: Identifier,
    name: Type.String(),
    network: Type.String(),
    type: Type.String(),
    currency: CurrencyCode,
    minLoadAmount: AmountText,
    maxLoadAmount: AmountText,
    issuanceFee: AmountText,
    depositFeePercent: PercentText,
    requiresHolder: Type.Boolean(),
  },
  { title: 'Offering' },
);
export type Offering = Static<typeof Offering>;

/** The pagination object. */
export const Pagination = Type.Object(
  {
    total: Type.Integer({ minimum: 0 }),
    page: Type.Integer({ minimum: 1 }),
    limit: Type.Integer({ minimum: 1 }),
    totalPages: Type.Integer({ minimum: 0 }),
  },
  { title: 'Pagination' },
);
export type Pagination = Static<typeof Pagination>;
