import type { OrderKind } from '../mirror/mirror-schema.js';

/** Every kind a journal row may have: the six API orders and the dashboard TOPUP. */
export const JOURNAL_KINDS: readonly OrderKind[] = [
  'ISSUE',
  'DEPOSIT',
  'WITHDRAW',
  'FREEZE',
  'UNFREEZE',
  'CANCEL',
  'TOPUP',
];

/** The kinds that move money and so carry an amount and a currency. */
export const MONEY_KINDS: ReadonlySet<OrderKind> = new Set([
  'ISSUE',
  'DEPOSIT',
  'WITHDRAW',
  'TOPUP',
]);

/** The kinds with no card yet (ISSUE) or none at all (TOPUP). */
export const CARDLESS_KINDS: ReadonlySet<OrderKind> = new Set(['ISSUE', 'TOPUP']);

/** A journal row as the merchant's books state it, checked and normalised. */
export interface JournalEntry {
  readonly merchantOrderNo: string;
  readonly kind: OrderKind;
  readonly cardId: string | null;
  readonly offeringId: string | null;
  /** The exact decimal text of the books; null for FREEZE, UNFREEZE and CANCEL. */
  readonly amount: string | null;
  /** Minor units; null without an amount, or when the text is too precise for the currency. */
  readonly amountMinor: number | null;
  readonly currency: string | null;
  /** ISO 8601 UTC with milliseconds. */
  readonly submittedAt: string;
  readonly orderNo: string | null;
}
