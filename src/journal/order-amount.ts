import { currencyExponent, isKnownCurrency } from '../money/currency.js';
import { type Minor, parseDecimal, toMinor } from '../money/decimal.js';
import { quoted } from './import-issue.js';

/** What {@link checkOrderAmount} made of an order's amount. */
export type OrderAmountCheck =
  | {
      readonly ok: true;
      /** Minor units of the currency; null when the text is too precise for it. */
      readonly minor: Minor | null;
      /** More fractional digits than the currency's exponent (`"1.005"` USD, `"10.50"` JPY). */
      readonly tooPrecise: boolean;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Check an order amount: unsigned decimal text above zero, no sign, exponent or separator, as
 * the wire carries it. Precision is judged against `currency` when it is a known code; too many
 * fractional digits, even zeros, is reported as `tooPrecise` (never rounded): the caller decides
 * whether that refuses the amount (an order to send) or only flags it (a journal row).
 * @example checkOrderAmount('12.5', 'USD') // { ok: true, minor: 1250, tooPrecise: false }
 */
export function checkOrderAmount(text: string, currency: string | null): OrderAmountCheck {
  const parsed = parseDecimal(text);
  if (!parsed)
    return {
      ok: false,
      reason: `expected a decimal amount such as 25.00 (no sign, exponent or separators), got ${quoted(text)}`,
    };
  if (/^0*$/.test(parsed.integer + parsed.fraction))
    return { ok: false, reason: `expected an amount above zero, got ${quoted(text)}` };
  if (currency === null || !isKnownCurrency(currency))
    return { ok: true, minor: null, tooPrecise: false };
  const exponent = currencyExponent(currency);
  const minor = toMinor(text, exponent);
  if (minor.ok) return { ok: true, minor: minor.minor, tooPrecise: false };
  if (minor.reason === 'too-precise') {
    // Still refuse a magnitude that would not fit even at the currency's precision.
    const whole = toMinor(parsed.integer || '0', exponent);
    if (whole.ok) return { ok: true, minor: null, tooPrecise: true };
  }
  return { ok: false, reason: `expected an amount below 2^53 minor units, got ${quoted(text)}` };
}

/**
 * Whether two amount texts are the same number (`"10"`, `"10.00"` and `"010.0"` are).
 * @example sameAmount('10', '10.00') // true
 */
export function sameAmount(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a === b;
  const x = parseDecimal(a);
  const y = parseDecimal(b);
  if (!x || !y) return a === b;
  return x.integer === y.integer && x.fraction.replace(/0+$/, '') === y.fraction.replace(/0+$/, '');
}
