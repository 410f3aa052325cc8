import { currencyExponent } from '../../money/currency.js';
import { type Minor, toMinor } from '../../money/decimal.js';
import { ApiError } from './api-error.js';

/**
 * A request amount in minor units of `currency`.
 * @throws ApiError VALIDATION_FAILED for too many fractional digits, too large, or (unless
 * `allowZero`) zero.
 */
export function requestAmount(
  field: string,
  text: string,
  currency: string,
  allowZero: boolean,
): Minor {
  const exponent = currencyExponent(currency);
  const result = toMinor(text, exponent);
  if (!result.ok) {
    const why =
      result.reason === 'too-precise'
        ? `must have at most ${exponent} fractional digits for ${currency}`
        : result.reason === 'too-large'
          ? 'is too large'
          : 'must be an unsigned decimal number';
    throw new ApiError('VALIDATION_FAILED', [`${field} ${why}`]);
  }
  if (!allowZero && result.minor === 0)
    throw new ApiError('VALIDATION_FAILED', [`${field} must be greater than 0`]);
  return result.minor;
}

const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|([+-])(\d{2}):?(\d{2})))?$/;

/**
 * An ISO 8601 date or date-time as epoch milliseconds (a date alone is midnight UTC; digits
 * past milliseconds are dropped).
 * @throws ApiError VALIDATION_FAILED when the text is not a real instant.
 */
export function requestInstant(field: string, text: string): number {
  const m = INSTANT.exec(text);
  const invalid = () =>
    new ApiError('VALIDATION_FAILED', [
      `${field} must be an ISO 8601 date-time, e.g. 2026-11-21T02:00:00.000Z`,
    ]);
  if (!m) throw invalid();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    Number(v ?? 0),
  ) as [number, number, number, number, number, number];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const check = new Date(utc);
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    throw invalid();
  }
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  return utc - offsetMinutes * 60_000;
}
