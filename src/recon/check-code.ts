/** The discrepancy codes of reference-model.md section 6, in report order. */
export const CHECK_CODES = [
  'CARD_BALANCE_MISMATCH',
  'ISSUANCE_FEE_MISMATCH',
  'DEPOSIT_FEE_MISMATCH',
  'WITHDRAWAL_FEE_MISMATCH',
  'ORDER_NOT_REFLECTED',
  'LOAD_OUT_OF_BOUNDS',
  'CURRENCY_MISMATCH',
  'DUPLICATE_TRANSACTION',
  'OVER_REFUND',
  'ACTIVITY_ON_INACTIVE_CARD',
  'NEGATIVE_BALANCE',
  'ORPHAN_TRANSACTION',
  'MERCHANT_BALANCE_MISMATCH',
  'STALE_PENDING',
  'PRECISION_VIOLATION',
  'UNJOURNALED_CARD',
] as const;

/** A discrepancy code. */
export type CheckCode = (typeof CHECK_CODES)[number];

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
