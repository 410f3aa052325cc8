import { createHash } from 'node:crypto';
import type { CheckCode } from './check-code.js';

/** The ids a finding may name; docs/findings.md says which of them identify each code. */
export interface FindingIds {
  readonly cardId: string | null;
  readonly transactionId: string | null;
  readonly orderNo: string | null;
  readonly merchantOrderNo: string | null;
  readonly tradeNo: string | null;
  /** MERCHANT_BALANCE_MISMATCH: when the later of its two balance snapshots was read. */
  readonly snapshotAt: string | null;
  /** PRECISION_VIOLATION of a card offering's terms: the offering. */
  readonly offeringId: string | null;
}

export type IdKey = keyof FindingIds;

/**
 * What identifies a finding of each code ("identified by" in docs/findings.md). CURRENCY_MISMATCH
 * names a transaction when it concerns one, else the card; ORDER_NOT_REFLECTED the order's
 * orderNo, else its merchantOrderNo (a FREEZE or UNFREEZE accepted without one);
 * PRECISION_VIOLATION the first it has of a transaction, a journal order, a card (its balance), a
 * merchant balance snapshot, a card offering (its terms): a journal order's finding also names its
 * card, yet is about the order.
 */
const IDENTITY: Readonly<
  Record<
    CheckCode,
    readonly IdKey[] | 'transaction-or-card' | 'order-or-merchant-order' | 'first-of-precision'
  >
> = {
  CARD_BALANCE_MISMATCH: ['cardId'],
  ISSUANCE_FEE_MISMATCH: ['orderNo'],
  DEPOSIT_FEE_MISMATCH: ['orderNo'],
  WITHDRAWAL_FEE_MISMATCH: ['orderNo'],
  ORDER_NOT_REFLECTED: 'order-or-merchant-order',
  LOAD_OUT_OF_BOUNDS: ['orderNo'],
  CURRENCY_MISMATCH: 'transaction-or-card',
  DUPLICATE_TRANSACTION: ['transactionId'],
  OVER_REFUND: ['cardId', 'tradeNo'],
  ACTIVITY_ON_INACTIVE_CARD: ['transactionId'],
  NEGATIVE_BALANCE: ['cardId'],
  ORPHAN_TRANSACTION: ['transactionId'],
  MERCHANT_BALANCE_MISMATCH: ['snapshotAt'],
  STALE_PENDING: ['transactionId'],
  PRECISION_VIOLATION: 'first-of-precision',
  UNJOURNALED_CARD: ['cardId'],
};

/** What a PRECISION_VIOLATION may be about, in the order its identity looks for them. */
const PRECISION_SUBJECTS: readonly IdKey[] = [
  'transactionId',
  'merchantOrderNo',
  'cardId',
  'snapshotAt',
  'offeringId',
];

/**
 * The ids that identify a finding of `check` with `ids` (beside its merchant): what a check
 * names when it leaves the finding's record undecided (`CoverageTally.leaveOpen`).
 * @example identityKeysOf('OVER_REFUND', ids) // ['cardId', 'tradeNo']
 */
export function identityKeysOf(check: CheckCode, ids: FindingIds): readonly IdKey[] {
  const rule = IDENTITY[check];
  if (rule === 'transaction-or-card')
    return [ids.transactionId !== null ? 'transactionId' : 'cardId'];
  if (rule === 'order-or-merchant-order')
    return [ids.orderNo !== null ? 'orderNo' : 'merchantOrderNo'];
  if (rule === 'first-of-precision')
    return [PRECISION_SUBJECTS.find((key) => ids[key] !== null) ?? 'transactionId'];
  return rule;
}

/**
 * The identity of a finding as text: its code, merchant and identifying ids, e.g.
 * `OVER_REFUND merchantId=mch_1 cardId=card_9 tradeNo=trd_4`.
 * @throws Error when an identifying id is missing (a bug in the check that built it).
 */
export function identityOf(check: CheckCode, merchantId: string, ids: FindingIds): string {
  const parts = identityKeysOf(check, ids).map((key) => {
    const id = ids[key];
    if (id === null) throw new Error(`${check} finding without its ${key}`);
    return `${key}=${id}`;
  });
  return [check, `merchantId=${merchantId}`, ...parts].join(' ');
}

/**
 * The stable fingerprint of a finding: 16 hex digits of the SHA-256 of its identity, short
 * enough to type in `cardsync findings ack`.
 * @example fingerprintOf('CARD_BALANCE_MISMATCH', 'mch_1', ids) // '3f9a1c0e5b7d2a64'
 */
export function fingerprintOf(check: CheckCode, merchantId: string, ids: FindingIds): string {
  return createHash('sha256')
    .update(identityOf(check, merchantId, ids))
    .digest('hex')
    .slice(0, 16);
}
