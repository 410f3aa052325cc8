import { currencyExponent, isKnownCurrency } from '../money/currency.js';
import { formatMinor, type Minor } from '../money/decimal.js';

/**
 * Minor units as decimal text in `currency`'s exponent, or null when either is unknown.
 * @example moneyText(-1250, 'USD') // '-12.50'
 */
export function moneyText(minor: Minor | bigint | null, currency: string | null): string | null {
  if (minor === null || currency === null || !isKnownCurrency(currency)) return null;
  return formatMinor(minor, currencyExponent(currency));
}

/**
 * `minor - less` as decimal text in `currency`, exact even where the difference of two amounts
 * passes 2^53 minor units; null when the currency is unknown.
 */
export function differenceText(minor: Minor, less: Minor, currency: string | null): string | null {
  return moneyText(BigInt(minor) - BigInt(less), currency);
}

/**
 * An amount of the mirror as a finding shows it: `text` rewritten in `currency`'s exponent from
 * its minor units (`'7.5'` USD is `'7.50'`), as every computed amount is, so one amount reads
 * the same in every finding; `text` as the upstream wrote it when it has no minor units (too
 * precise, or the currency unknown).
 * @example amountText(-50, '-0.5', 'USD') // '-0.50'
 */
export function amountText(minor: Minor | null, text: string, currency: string | null): string {
  return moneyText(minor, currency) ?? text;
}
