import { currencyExponent, isKnownCurrency } from '../money/currency.js';
import { toMinor } from '../money/decimal.js';

/**
 * The `*_minor` value beside a money column: minor units of `currency`, or null when the text
 * has more fractional digits than the currency allows (or the currency is unknown), which the
 * reconciliation reports as PRECISION_VIOLATION.
 */
export function minorColumn(text: string, currency: string): number | null {
  if (!isKnownCurrency(currency)) return null;
  const result = toMinor(text, currencyExponent(currency), { signed: true });
  return result.ok ? result.minor : null;
}
