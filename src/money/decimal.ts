/**
 * Decimal text <-> integer minor units. The only place in cardsync where amounts change form.
 *
 * Minor units are JavaScript integers checked to be safe (|n| < 2^53), which is exact for every
 * amount a card programme can hold; anything larger is refused, never rounded.
 */

/** An amount in the currency's smallest unit (cents for USD, yen for JPY, fils for KWD). */
export type Minor = number;

/** A decimal number written as text, split into its parts. */
export interface ParsedDecimal {
  readonly negative: boolean;
  /** Digits before the point, without leading zeros ('' for zero). */
  readonly integer: string;
  /** Digits after the point, as written (may have trailing zeros). */
  readonly fraction: string;
}

const UNSIGNED = /^(\d+)(?:\.(\d+))?$/;
const SIGNED = /^(-)?(\d+)(?:\.(\d+))?$/;

/**
 * Parse decimal text such as `"12.50"` or `"-3"`. No exponent, no `+`, no spaces, no bare `"."`.
 * @returns undefined when `text` is not a plain decimal.
 */
export function parseDecimal(
  text: string,
  options: { signed?: boolean } = {},
): ParsedDecimal | undefined {
  if (options.signed) {
    const match = SIGNED.exec(text);
    if (!match) return undefined;
    return {
      negative: match[1] === '-',
      integer: stripZeros(match[2] ?? ''),
      fraction: match[3] ?? '',
    };
  }
  const match = UNSIGNED.exec(text);
  if (!match) return undefined;
  return { negative: false, integer: stripZeros(match[1] ?? ''), fraction: match[2] ?? '' };
}

function stripZeros(digits: string): string {
  return digits.replace(/^0+/, '');
}

/** Why decimal text could not become minor units. */
export type MinorParseFailure = 'not-a-decimal' | 'too-precise' | 'too-large';

/** The result of {@link toMinor}: minor units, or the reason there are none. */
export type MinorParseResult =
  | { readonly ok: true; readonly minor: Minor }
  | { readonly ok: false; readonly reason: MinorParseFailure };

/**
 * Convert decimal text to minor units of a currency with `exponent` fractional digits.
 * More fractional digits than the exponent, even zeros (`"1.500"` in USD), is `too-precise`:
 * the wire carries at most the currency's digits, and nothing is ever rounded here.
 * @example toMinor('12.5', 2) // { ok: true, minor: 1250 }
 */
export function toMinor(
  text: string,
  exponent: number,
  options: { signed?: boolean } = {},
): MinorParseResult {
  const parsed = parseDecimal(text, options);
  if (!parsed) return { ok: false, reason: 'not-a-decimal' };
  if (parsed.fraction.length > exponent) return { ok: false, reason: 'too-precise' };
  const digits = parsed.integer + parsed.fraction.padEnd(exponent, '0');
  const magnitude = digits === '' ? 0 : Number(digits);
  if (!Number.isSafeInteger(magnitude)) return { ok: false, reason: 'too-large' };
  return { ok: true, minor: parsed.negative && magnitude !== 0 ? -magnitude : magnitude };
}

/**
 * Like {@link toMinor} but throws: for text that is already known to be valid.
 * @throws RangeError naming the text and the reason.
 */
export function toMinorOrThrow(
  text: string,
  exponent: number,
  options: { signed?: boolean } = {},
): Minor {
  const result = toMinor(text, exponent, options);
  if (!result.ok)
    throw new RangeError(`${JSON.stringify(text)} is ${result.reason} for exponent ${exponent}`);
  return result.minor;
}

/**
 * Write minor units as decimal text with exactly `exponent` fractional digits. A sum or a
 * difference of amounts, which may pass 2^53, is written exactly when given as a bigint.
 * @example formatMinor(-1250, 2) // '-12.50'
 * @throws RangeError for a number that is not a safe integer.
 */
export function formatMinor(minor: Minor | bigint, exponent: number): string {
  if (typeof minor === 'number' && !Number.isSafeInteger(minor))
    throw new RangeError(`${minor} is not a safe integer amount`);
  const negative = minor < 0;
  const digits = String(negative ? -minor : minor).padStart(exponent + 1, '0');
  const integer = digits.slice(0, digits.length - exponent);
  const fraction = digits.slice(digits.length - exponent);
  const body = exponent === 0 ? integer : `${integer}.${fraction}`;
  return negative ? `-${body}` : body;
}
