import type { Check } from './check.js';
import { activityOnInactiveCard } from './checks/activity-on-inactive-card.js';
import { cardBalanceMismatch } from './checks/card-balance-mismatch.js';
import { currencyMismatch } from './checks/currency-mismatch.js';
import { depositFeeMismatch } from './checks/deposit-fee-mismatch.js';
import { duplicateTransaction } from './checks/duplicate-transaction.js';
import { issuanceFeeMismatch } from './checks/issuance-fee-mismatch.js';
import { loadOutOfBounds } from './checks/load-out-of-bounds.js';
import { merchantBalanceMismatch } from './checks/merchant-balance-mismatch.js';
import { negativeBalance } from './checks/negative-balance.js';
import { orderNotReflected } from './checks/order-not-reflected.js';
import { orphanTransaction } from './checks/orphan-transaction.js';
import { overRefund } from './checks/over-refund.js';
import { precisionViolation } from './checks/precision-violation.js';
import { stalePending } from './checks/stale-pending.js';
import { unjournaledCard } from './checks/unjournaled-card.js';
import { withdrawalFeeMismatch } from './checks/withdrawal-fee-mismatch.js';

/** Every check of reference-model.md section 6, in the order of `CHECK_CODES`. */
export const ALL_CHECKS: readonly Check[] = Object.freeze([
  cardBalanceMismatch,
  issuanceFeeMismatch,
  depositFeeMismatch,
  withdrawalFeeMismatch,
  orderNotReflected,
  loadOutOfBounds,
  currencyMismatch,
  duplicateTransaction,
  overRefund,
  activityOnInactiveCard,
  negativeBalance,
  orphanTransaction,
  merchantBalanceMismatch,
  stalePending,
  precisionViolation,
  unjournaledCard,
]);
