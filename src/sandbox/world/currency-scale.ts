import { currencyExponent } from '../../money/currency.js';
import type { Minor } from '../../money/decimal.js';

/**
 * Scale a USD-like amount given in cents to minor units of `currency`: as written for a 2-digit
 * currency, cents read as whole units for a 0-digit one (1 USD is about 100 JPY), ×10 for a
 * 3-digit one. Keeps generated amounts plausible in every currency.
 */
export function scaledMinor(cents: number, currency: string): Minor {
  const exponent = currencyExponent(currency);
  if (exponent === 0) return cents;
  return cents * 10 ** (exponent - 2);
}
