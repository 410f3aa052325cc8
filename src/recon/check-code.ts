import { CHECK_CODES, type CheckCode } from '../contract/reference-model.js';

export { CHECK_CODES, type CheckCode };

/** How serious a finding is; `--fail-on` compares against it. */
export type Severity = 'error' | 'warning' | 'info';

/** The severities, most serious first. */
export const SEVERITIES: readonly Severity[] = ['error', 'warning', 'info'];

/** The severity of each code, as section 6 fixes it. */
export const SEVERITY_OF: Readonly<Record<CheckCode, Severity>> = Object.freeze({
  CARD_BALANCE_MISMATCH: 'error',
  ISSUANCE_FEE_MISMATCH: 'error',
  DEPOSIT_FEE_MISMATCH: 'error',
  WITHDRAWAL_FEE_MISMATCH: 'error',
  ORDER_NOT_REFLECTED: 'error',
  LOAD_OUT_OF_BOUNDS: 'error',
  CURRENCY_MISMATCH: 'error',
  DUPLICATE_TRANSACTION: 'error',
  OVER_REFUND: 'error',
  ACTIVITY_ON_INACTIVE_CARD: 'error',
  NEGATIVE_BALANCE: 'error',
  ORPHAN_TRANSACTION: 'error',
  MERCHANT_BALANCE_MISMATCH: 'error',
  STALE_PENDING: 'warning',
  PRECISION_VIOLATION: 'warning',
  UNJOURNALED_CARD: 'info',
});

/** True when `text` is one of {@link CHECK_CODES}. */
export function isCheckCode(text: string): text is CheckCode {
  return (CHECK_CODES as readonly string[]).includes(text);
}
