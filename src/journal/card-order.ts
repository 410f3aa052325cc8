import type {
  CardAmountOrderRequest,
  CardOrderRequest,
  IssueCardRequest,
  OrderKind,
} from '../contract/index.js';
import { sameAmount } from './order-amount.js';

/** An order of the interface, as an operator asks for it (no merchantOrderNo yet). */
export type CardOrder =
  | {
      readonly kind: 'ISSUE';
      readonly offeringId: string;
      readonly amount: string;
      readonly holderId?: string | undefined;
    }
  | { readonly kind: 'DEPOSIT' | 'WITHDRAW'; readonly cardId: string; readonly amount: string }
  | { readonly kind: 'FREEZE' | 'UNFREEZE' | 'CANCEL'; readonly cardId: string };

/** The body of an order's POST. */
export type OrderBody = IssueCardRequest | CardAmountOrderRequest | CardOrderRequest;

/**
 * The request body of `order`, its fields in the contract's order so that the JSON text the
 * journal keeps is byte for byte what the client sends.
 */
export function orderBody(order: CardOrder, merchantOrderNo: string): OrderBody {
  switch (order.kind) {
    case 'ISSUE':
      return {
        offeringId: order.offeringId,
        amount: order.amount,
        merchantOrderNo,
        ...(order.holderId === undefined ? {} : { holderId: order.holderId }),
      };
    case 'DEPOSIT':
    case 'WITHDRAW':
      return { cardId: order.cardId, amount: order.amount, merchantOrderNo };
    default:
      return { cardId: order.cardId, merchantOrderNo };
  }
}

/** The order a journaled request body describes. */
export function orderOfBody(kind: OrderKind, body: Record<string, string | undefined>): CardOrder {
  switch (kind) {
    case 'ISSUE':
      return {
        kind,
        offeringId: body.offeringId ?? '',
        amount: body.amount ?? '',
        holderId: body.holderId,
      };
    case 'DEPOSIT':
    case 'WITHDRAW':
      return { kind, cardId: body.cardId ?? '', amount: body.amount ?? '' };
    default:
      return { kind, cardId: body.cardId ?? '' };
  }
}

/**
 * Whether two orders are the same for idempotency, as the upstream judges it: same kind and
 * parameters, amounts compared as numbers (`"10"` is `"10.00"`).
 */
export function sameCardOrder(a: CardOrder, b: CardOrder): boolean {
  const fields = (o: CardOrder) => ({
    cardId: 'cardId' in o ? o.cardId : null,
    offeringId: 'offeringId' in o ? o.offeringId : null,
    holderId: ('holderId' in o ? o.holderId : undefined) ?? null,
    amount: 'amount' in o ? o.amount : null,
  });
  const x = fields(a);
  const y = fields(b);
  return (
    a.kind === b.kind &&
    x.cardId === y.cardId &&
    x.offeringId === y.offeringId &&
    x.holderId === y.holderId &&
    sameAmount(x.amount, y.amount)
  );
}

/** The order in a few words, for messages: `DEPOSIT 10.00 to card_1`. */
export function describeCardOrder(order: CardOrder): string {
  switch (order.kind) {
    case 'ISSUE':
      return `ISSUE ${order.amount} from offering ${order.offeringId}${order.holderId ? ` for holder ${order.holderId}` : ''}`;
    case 'DEPOSIT':
      return `DEPOSIT ${order.amount} to card ${order.cardId}`;
    case 'WITHDRAW':
      return `WITHDRAW ${order.amount} from card ${order.cardId}`;
    default:
      return `${order.kind} card ${order.cardId}`;
  }
}
