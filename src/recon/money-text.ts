import { currencyExponent, isKnownCurrency } from '../money/currency.js';
import { formatMinor, type Minor } from '../money/decimal.js';

/**
 * Minor units as decimal text in `currency`'s exponent, or null when either is unknown.
 * @example moneyText(-1250, 'USD') // '-12.50'
 */
export function moneyText(minor: Minor | null, currency: string | null): string | null {
  if (minor === null || currency === null || !isKnownCurrency(currency)) return null;
  return formatMinor(minor, currencyExponent(currency));
}
