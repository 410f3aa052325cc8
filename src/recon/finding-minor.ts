import { minorColumn } from '../mirror/minor-column.js';
import type { CheckCode } from './check-code.js';
import type { Finding } from './finding.js';

/**
 * Whether a check's `expected`, `actual` and `delta` are amounts in the finding's currency.
 * The others hold a card status (ORDER_NOT_REFLECTED), currency codes (CURRENCY_MISMATCH), an
 * amount that has no minor units by definition (PRECISION_VIOLATION), or nothing: their text
 * may look like a number without being money. sql/012_findings_minor_units.sql filled in the
 * findings already stored by this same list.
 */
export const REPORTS_AMOUNTS: Readonly<Record<CheckCode, boolean>> = Object.freeze({
  CARD_BALANCE_MISMATCH: true,
  ISSUANCE_FEE_MISMATCH: true,
  DEPOSIT_FEE_MISMATCH: true,
  WITHDRAWAL_FEE_MISMATCH: true,
  ORDER_NOT_REFLECTED: false,
  LOAD_OUT_OF_BOUNDS: true,
  CURRENCY_MISMATCH: false,
  DUPLICATE_TRANSACTION: true,
  OVER_REFUND: true,
  ACTIVITY_ON_INACTIVE_CARD: true,
  NEGATIVE_BALANCE: true,
  ORPHAN_TRANSACTION: false,
  MERCHANT_BALANCE_MISMATCH: true,
  STALE_PENDING: true,
  PRECISION_VIOLATION: false,
  UNJOURNALED_CARD: false,
});

/** The integer columns beside a finding's `expected`, `actual` and `delta`. */
export interface FindingMinor {
  readonly expectedMinor: number | null;
  readonly actualMinor: number | null;
  readonly deltaMinor: number | null;
}

/**
 * A finding's values as minor units of its currency, for analysts' arithmetic: null for a check
 * that does not report amounts, and where the text is no amount of the currency (none, too
 * precise, beyond 2^53 minor units, or the currency unknown), as the mirror's other `*_minor`.
 * @example findingMinor({ check: 'NEGATIVE_BALANCE', currency: 'USD', expected: null, actual: '-5.5', delta: null })
 * // { expectedMinor: null, actualMinor: -550, deltaMinor: null }
 */
export function findingMinor(
  finding: Pick<Finding, 'check' | 'currency' | 'expected' | 'actual' | 'delta'>,
): FindingMinor {
  const { currency } = finding;
  const minor = (text: string | null) =>
    REPORTS_AMOUNTS[finding.check] && text !== null && currency !== null
      ? minorColumn(text, currency)
      : null;
  return {
    expectedMinor: minor(finding.expected),
    actualMinor: minor(finding.actual),
    deltaMinor: minor(finding.delta),
  };
}
