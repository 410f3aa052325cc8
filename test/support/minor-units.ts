/**
 * Decimal text to integer minor units for the independent checker, written apart from
 * `src/money` so that nothing is shared with the code under test. BigInt throughout; no floats.
 */

/** ISO 4217 exponents of the currencies generated worlds use (their own and the mismatched ones). */
const ISO_EXPONENTS: Readonly<Record<string, number>> = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  JPY: 0,
  KRW: 0,
  XOF: 0,
  KWD: 3,
  BHD: 3,
};

/** The ISO 4217 exponent of `currency`; throws for one the table does not know. */
export function isoExponent(currency: string): number {
  const exponent = ISO_EXPONENTS[currency];
  if (exponent === undefined) throw new Error(`no ISO 4217 exponent known for ${currency}`);
  return exponent;
}

/**
 * Minor units of a decimal amount, or `null` when it has more fractional digits than
 * `exponent` allows (a precision violation: the amount cannot be used). Fewer digits are fine.
 * Anything that is not a plain decimal throws.
 * @example minorUnits('12.5', 2) // 1250n
 * @example minorUnits('12.345', 2) // null
 */
export function minorUnits(text: string, exponent: number): bigint | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`${JSON.stringify(text)} is not a decimal amount`);
  const fraction = match[3] ?? '';
  if (fraction.length > exponent) return null;
  const magnitude = BigInt(`${match[2]}${fraction.padEnd(exponent, '0')}`);
  return match[1] === '-' ? -magnitude : magnitude;
}

/** Minor units of `text` in `currency`, or `null` for a precision violation. */
export function minorUnitsIn(text: string, currency: string): bigint | null {
  return minorUnits(text, isoExponent(currency));
}
