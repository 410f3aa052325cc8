import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { DataEnvelope, PageEnvelope } from './envelopes.js';
import type { ErrorCode } from './error-codes.js';
import {
  CardAmountOrderRequest,
  CardIdQuery,
  CardOrderRequest,
  IssueCardRequest,
  ListCardsQuery,
  ListTransactionsQuery,
} from './requests.js';
import {
  Card,
  MerchantBalance,
  Offering,
  OrderReference,
  SensitiveCardInfo,
  Transaction,
} from './resources.js';

/** One operation of the upstream interface: its request and response shapes. */
export interface RouteContract {
  readonly operationId: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly summary: string;
  readonly tag: 'cards' | 'transactions' | 'merchants';
  readonly querystring?: TSchema;
  readonly body?: TSchema;
  /** 200 for reads, 201 for orders (reference-model section 1). */
  readonly successStatus: 200 | 201;
  readonly response: TSchema;
  /** The error codes this operation can answer with, beyond 401 and 429. */
  readonly errors: readonly ErrorCode[];
}

const ORDER_ERRORS = [
  'VALIDATION_FAILED',
  'DUPLICATE_ORDER',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;
const CARD_ORDER_ERRORS = [...ORDER_ERRORS, 'CARD_NOT_FOUND', 'INVALID_CARD_STATE'] as const;

/** The twelve operations of the card-issuing interface, keyed by operation id. */
export const ROUTES = {
  listCards: {
    operationId: 'listCards',
    method: 'GET',
    path: '/cards',
    summary: 'List cards',
    tag: 'cards',
    querystring: ListCardsQuery,
    successStatus: 200,
    response: PageEnvelope(Card),
    errors: ['VALIDATION_FAILED'],
  },
  issueCard: {
    operationId: 'issueCard',
    method: 'POST',
    path: '/cards',
    summary: 'Issue a card (asynchronous)',
    tag: 'cards',
    body: IssueCardRequest,
    successStatus: 201,
    response: DataEnvelope(OrderReference),
    errors: [
      ...ORDER_ERRORS,
      'OFFERING_NOT_FOUND',
      'HOLDER_REQUIRED',
      'LOAD_OUT_OF_BOUNDS',
      'INSUFFICIENT_BALANCE',
    ],
  },
  getSensitiveCard: {
    operationId: 'getSensitiveCard',
    method: 'GET',
    path: '/cards/sensitive',
    summary: 'Sensitive card fields',
    tag: 'cards',
    querystring: CardIdQuery,
    successStatus: 200,
    response: DataEnvelope(SensitiveCardInfo),
    errors: ['VALIDATION_FAILED', 'CARD_NOT_FOUND'],
  },
  getCard: {
    operationId: 'getCard',
    method: 'GET',
    path: '/cards/info',
    summary: 'Card details',
    tag: 'cards',
    querystring: CardIdQuery,
    successStatus: 200,
    response: DataEnvelope(Card),
    errors: ['VALIDATION_FAILED', 'CARD_NOT_FOUND'],
  },
  freezeCard: {
    operationId: 'freezeCard',
    method: 'POST',
    path: '/cards/freeze',
    summary: 'Freeze a card',
    tag: 'cards',
    body: CardOrderRequest,
    successStatus: 201,
    response: DataEnvelope(OrderReference),
    errors: CARD_ORDER_ERRORS,
  },
  unfreezeCard: {
    operationId: 'unfreezeCard',
    method: 'POST',
    path: '/cards/unfreeze',
    summary: 'Unfreeze a card',
    tag: 'cards',
    body: CardOrderRequest,
    successStatus: 201,
    response: DataEnvelope(OrderReference),
    errors: CARD_ORDER_ERRORS,
  },
  cancelCard: {
    operationId: 'cancelCard',
    method: 'POST',
    path: '/cards/cancel',
    summary: 'Request cancellation of a card',
    tag: 'cards',
    body: CardOrderRequest,
    successStatus: 201,
    response: DataEnvelope(OrderReference),
    errors: CARD_ORDER_ERRORS,
  },
  withdraw: {
    operationId: 'withdraw',
    method: 'POST',
    path: '/cards/withdraw',
    summary: 'Withdraw funds from a card (asynchronous)',
    tag: 'cards',
    body: CardAmountOrderRequest,
    successStatus: 201,
    response: DataEnvelope(OrderReference),
    errors: [...CARD_ORDER_ERRORS, 'INSUFFICIENT_CARD_BALANCE'],
  },
  deposit: {
    operationId: 'deposit',
    method: 'POST',
    path: '/cards/deposit',
    summary: 'Deposit funds to a card (asynchronous)',
    tag: 'cards',
    body: CardAmountOrderRequest,
    successStatus: 201,
    response: DataEnvelope(OrderReference),
    errors: [...CARD_ORDER_ERRORS, 'INSUFFICIENT_BALANCE'],
  },
  listTransactions: {
    operationId: 'listTransactions',
    method: 'GET',
    path: '/transactions',
    summary: 'List card transactions',
    tag: 'transactions',
    querystring: ListTransactionsQuery,
    successStatus: 200,
    response: PageEnvelope(Transaction),
    errors: ['VALIDATION_FAILED'],
  },
  getMerchantBalance: {
    operationId: 'getMerchantBalance',
    method: 'GET',
    path: '/merchants/balance',
    summary: 'Merchant balance',
    tag: 'merchants',
    successStatus: 200,
    response: DataEnvelope(MerchantBalance),
    errors: ['VALIDATION_FAILED'],
  },
  listOfferings: {
    operationId: 'listOfferings',
    method: 'GET',
    path: '/merchants/offerings',
    summary: 'List card offerings',
    tag: 'merchants',
    successStatus: 200,
    response: DataEnvelope(Type.Array(Offering)),
    errors: ['VALIDATION_FAILED'],
  },
} as const satisfies Record<string, RouteContract>;

/** The operation ids of the interface. */
export type OperationId = keyof typeof ROUTES;
