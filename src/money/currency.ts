/**
 * ISO 4217 minor-unit exponents for the currencies cardsync knows.
 * An unknown code is refused rather than guessed: a wrong exponent would move every amount by
 * a factor of ten.
 */
const EXPONENTS: Readonly<Record<string, number>> = Object.freeze({
  AED: 2,
  AUD: 2,
  BHD: 3,
  BRL: 2,
  CAD: 2,
  CHF: 2,
  CLP: 0,
  CNY: 2,
  CZK: 2,
  DKK: 2,
  EUR: 2,
  GBP: 2,
  HKD: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  ISK: 0,
  JOD: 3,
  JPY: 0,
  KRW: 0,
  KWD: 3,
  MXN: 2,
  MYR: 2,
  NOK: 2,
  NZD: 2,
  OMR: 3,
  PHP: 2,
  PLN: 2,
  SAR: 2,
  SEK: 2,
  SGD: 2,
  THB: 2,
  TND: 3,
  TRY: 2,
  TWD: 2,
  UGX: 0,
  USD: 2,
  VND: 0,
  XAF: 0,
  XOF: 0,
  ZAR: 2,
});

/** The currency codes with a known exponent, sorted. */
export const KNOWN_CURRENCIES: readonly string[] = Object.freeze(Object.keys(EXPONENTS).sort());

/** True when `code` is a currency whose exponent cardsync knows. */
export function isKnownCurrency(code: string): boolean {
  return Object.hasOwn(EXPONENTS, code);
}

/**
 * The number of fractional digits of `code`, e.g. `currencyExponent('JPY') === 0`.
 * @throws RangeError for an unknown code.
 */
export function currencyExponent(code: string): number {
  const exponent = EXPONENTS[code];
  if (exponent === undefined) {
    throw new RangeError(`unknown currency ${JSON.stringify(code)}`);
  }
  return exponent;
}
