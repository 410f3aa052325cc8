import { type Minor, parseDecimal } from './decimal.js';
import { divideRounded, type RoundingMode } from './rounding.js';

/**
 * `percent` % of `amount`, in the same minor units, rounded with `mode` (half-up by default, as
 * the reference model's deposit fee). The percentage is decimal text such as `"1.25"`.
 * @example percentOf(1050, '2.5') // 26 (26.25 cents rounds down)
 * @throws RangeError when `percent` is not non-negative decimal text, or `amount` is not a safe
 * integer (past 2^53 a number no longer holds every minor unit, so the fee would be of another
 * amount).
 */
export function percentOf(amount: Minor, percent: string, mode: RoundingMode = 'half-up'): Minor {
  if (!Number.isSafeInteger(amount))
    throw new RangeError(`amount ${amount} is not a safe integer of minor units`);
  const parsed = parseDecimal(percent);
  if (!parsed) throw new RangeError(`${JSON.stringify(percent)} is not a percentage`);
  const scaled = BigInt(`${parsed.integer}${parsed.fraction}` || '0');
  const denominator = 100n * 10n ** BigInt(parsed.fraction.length);
  const fee = divideRounded(BigInt(amount) * scaled, denominator, mode);
  // Back to a plain integer of minor units (exact: no digits are lost within +-2^53); refuse
  // rather than lose digits beyond, on either side.
  if (fee > BigInt(Number.MAX_SAFE_INTEGER) || fee < BigInt(Number.MIN_SAFE_INTEGER))
    throw new RangeError(`fee ${fee} exceeds the safe integer range`);
  return Number(fee);
}
