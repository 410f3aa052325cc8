import { type Static, Type } from 'typebox';
import { TransactionStatus, TransactionType } from '../../contract/enums.js';
import { Identifier, RequestAmount, TimestampQuery } from '../../contract/primitives.js';

const strict = { additionalProperties: false } as const;

export const MerchantParams = Type.Object({ merchantId: Identifier }, strict);
export const CardParams = Type.Object({ cardId: Identifier }, strict);
export const TransactionParams = Type.Object({ transactionId: Identifier }, strict);

export const AdvanceClockBody = Type.Object({ advanceMs: Type.Integer({ minimum: 0 }) }, strict);
export type AdvanceClockBody = Static<typeof AdvanceClockBody>;

export const ProcessOrdersBody = Type.Object(
  {
    orderNo: Type.Optional(Identifier),
    outcome: Type.Optional(Type.Enum(['success', 'failure'])),
  },
  strict,
);
export type ProcessOrdersBody = Static<typeof ProcessOrdersBody>;

export const TopUpBody = Type.Object({ amount: RequestAmount }, strict);
export type TopUpBody = Static<typeof TopUpBody>;

export const UnjournaledMovementBody = Type.Object(
  { amount: RequestAmount, direction: Type.Optional(Type.Enum(['debit', 'credit'])) },
  strict,
);
export type UnjournaledMovementBody = Static<typeof UnjournaledMovementBody>;

export const RotateKeyBody = Type.Object(
  { apiKey: Type.Optional(Type.String({ minLength: 1 })) },
  strict,
);
export type RotateKeyBody = Static<typeof RotateKeyBody>;

export const CardStatusBody = Type.Object({ status: Type.Enum(['BLOCKED', 'ACTIVE']) }, strict);
export type CardStatusBody = Static<typeof CardStatusBody>;

export const PostTransactionBody = Type.Object(
  {
    type: TransactionType,
    status: Type.Optional(TransactionStatus),
    amount: RequestAmount,
    fee: Type.Optional(RequestAmount),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    merchantName: Type.Optional(Type.String({ maxLength: 200 })),
    tradeNo: Type.Optional(Identifier),
    createdAt: Type.Optional(TimestampQuery),
    visibleAt: Type.Optional(TimestampQuery),
    /** Record it as given even where the card network would decline or refuse it. */
    force: Type.Optional(Type.Boolean()),
  },
  strict,
);
export type PostTransactionBody = Static<typeof PostTransactionBody>;

export const TransactionStatusBody = Type.Object({ status: TransactionStatus }, strict);
export type TransactionStatusBody = Static<typeof TransactionStatusBody>;
