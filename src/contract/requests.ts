import { type Static, Type } from 'typebox';
import { CardStatus, TransactionStatus, TransactionType } from './enums.js';
import {
  Identifier,
  MerchantOrderNo,
  PositiveIntegerQuery,
  RequestAmount,
  TimestampQuery,
} from './primitives.js';

const strict = { additionalProperties: false } as const;

/** Query of GET /cards. */
export const ListCardsQuery = Type.Object(
  {
    status: Type.Optional(CardStatus),
    page: Type.Optional(PositiveIntegerQuery),
    limit: Type.Optional(PositiveIntegerQuery),
  },
  strict,
);
export type ListCardsQuery = Static<typeof ListCardsQuery>;

/** Query of GET /cards/info and GET /cards/sensitive. */
export const CardIdQuery = Type.Object({ cardId: Identifier }, strict);
export type CardIdQuery = Static<typeof CardIdQuery>;

/** Query of GET /transactions. */
export const ListTransactionsQuery = Type.Object(
  {
    cardId: Type.Optional(Identifier),
    type: Type.Optional(TransactionType),
    status: Type.Optional(TransactionStatus),
    startTime: Type.Optional(TimestampQuery),
    endTime: Type.Optional(TimestampQuery),
    page: Type.Optional(PositiveIntegerQuery),
    limit: Type.Optional(PositiveIntegerQuery),
  },
  strict,
);
export type ListTransactionsQuery = Static<typeof ListTransactionsQuery>;

/** Body of POST /cards. */
export const IssueCardRequest = Type.Object(
  {
    offeringId: Identifier,
    amount: RequestAmount,
    merchantOrderNo: MerchantOrderNo,
    holderId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  strict,
);
export type IssueCardRequest = Static<typeof IssueCardRequest>;

/** Body of POST /cards/freeze, /cards/unfreeze and /cards/cancel. */
export const CardOrderRequest = Type.Object(
  { cardId: Identifier, merchantOrderNo: MerchantOrderNo },
  strict,
);
export type CardOrderRequest = Static<typeof CardOrderRequest>;

/** Body of POST /cards/deposit and /cards/withdraw. */
export const CardAmountOrderRequest = Type.Object(
  { cardId: Identifier, amount: RequestAmount, merchantOrderNo: MerchantOrderNo },
  strict,
);
export type CardAmountOrderRequest = Static<typeof CardAmountOrderRequest>;
