import type { TransactionStatus, TransactionType } from '../../contract/index.js';

/** The statuses a transaction of each type may be created in. */
const INITIAL: Readonly<Record<TransactionType, readonly TransactionStatus[]>> = {
  PURCHASE: ['PENDING', 'COMPLETED', 'DECLINED'],
  REFUND: ['PENDING', 'COMPLETED'],
  REVERSAL: ['COMPLETED'],
  VERIFICATION: ['COMPLETED', 'DECLINED'],
  FEE: ['PENDING', 'COMPLETED', 'DECLINED'],
};

/** The moves each type's lifecycle allows (reference-model section 4). */
const NEXT: Readonly<
  Record<
    TransactionType,
    Readonly<Partial<Record<TransactionStatus, readonly TransactionStatus[]>>>
  >
> = {
  PURCHASE: { PENDING: ['COMPLETED', 'DECLINED'], COMPLETED: ['SETTLED'] },
  REFUND: { PENDING: ['COMPLETED'], COMPLETED: ['SETTLED'] },
  REVERSAL: { COMPLETED: ['SETTLED'] },
  VERIFICATION: {},
  FEE: { PENDING: ['COMPLETED', 'DECLINED'], COMPLETED: ['SETTLED'] },
};

/** True when a transaction of `type` may be created in `status`. */
export function canStartIn(type: TransactionType, status: TransactionStatus): boolean {
  return INITIAL[type].includes(status);
}

/** True when a transaction of `type` may move from `from` to `to`. */
export function canMove(
  type: TransactionType,
  from: TransactionStatus,
  to: TransactionStatus,
): boolean {
  return NEXT[type][from]?.includes(to) ?? false;
}

/** The statuses a transaction of `type` may be created in. */
export function initialStatuses(type: TransactionType): readonly TransactionStatus[] {
  return INITIAL[type];
}
