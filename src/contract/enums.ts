import { type Static, Type } from 'typebox';
import { CARD_STATUSES } from './card-statuses.js';

export { CARD_STATUSES };
export const CardStatus = Type.Enum(CARD_STATUSES);
export type CardStatus = Static<typeof CardStatus>;

/** Transaction statuses. */
export const TRANSACTION_STATUSES = ['PENDING', 'COMPLETED', 'DECLINED', 'SETTLED'] as const;
export const TransactionStatus = Type.Enum(TRANSACTION_STATUSES);
export type TransactionStatus = Static<typeof TransactionStatus>;

/** Transaction types. */
export const TRANSACTION_TYPES = ['PURCHASE', 'REFUND', 'REVERSAL', 'VERIFICATION', 'FEE'] as const;
export const TransactionType = Type.Enum(TRANSACTION_TYPES);
export type TransactionType = Static<typeof TransactionType>;

/** The six order operations (every POST is one). */
export const ORDER_KINDS = [
  'ISSUE',
  'DEPOSIT',
  'WITHDRAW',
  'FREEZE',
  'UNFREEZE',
  'CANCEL',
] as const;
export type OrderKind = (typeof ORDER_KINDS)[number];
