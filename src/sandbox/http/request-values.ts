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

/** An instant to the nanosecond: whole epoch milliseconds plus the nanoseconds past them. */
interface PreciseInstant {
  readonly millis: number;
  /** 0 to 999,999. */
  readonly nanos: number;
}

function parseInstant(field: string, text: string): PreciseInstant {
  const m = INSTANT.exec(text);
  const invalid = () =>
    new ApiError('VALIDATION_FAILED', [
      `${field} must be an ISO 8601 date-time, e.g. 2026-11-21T02:00:00.000Z`,
    ]);
  if (!m) throw invalid();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    Number(v ?? 0),
  ) as [number, number, number, number, number, number];
  const fraction = (m[7] ?? '').padEnd(9, '0');
  // Not Date.UTC, which reads years 0 to 99 as 1900 to 1999 (the check below then refused them).
  const check = new Date(0);
  check.setUTCFullYear(year, month - 1, day);
  check.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3)));
  const utc = check.getTime();
  const [offsetHours, offsetMinutes] = [Number(m[10] ?? 0), Number(m[11] ?? 0)];
  if (
    check.getUTCFullYear() !== year ||
    check.getUTCMonth() !== month - 1 ||
    check.getUTCDate() !== day ||
    hour > 23 ||
    minute > 59 ||
    second > 59 ||
    offsetHours > 23 ||
    offsetMinutes > 59
  ) {
    throw invalid();
  }
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes);
  return { millis: utc - offset * 60_000, nanos: Number(fraction.slice(3)) };
}

/**
 * An ISO 8601 date or date-time as epoch milliseconds (a date alone is midnight UTC; digits
 * past milliseconds are dropped).
 * @throws ApiError VALIDATION_FAILED when the text is not a real instant.
 */
export function requestInstant(field: string, text: string): number {
  return parseInstant(field, text).millis;
}

/**
 * The `createdAt` range of a list request, in epoch milliseconds, both ends inclusive
 * (reference-model section 1). `createdAt` has whole milliseconds, so a start with digits past
 * the millisecond begins at the next one, and an end with such digits stops at its own.
 * @throws ApiError VALIDATION_FAILED for a bad instant, or a start after the end.
 */
export function requestTimeRange(
  startText: string | undefined,
  endText: string | undefined,
): { readonly startTime: number | undefined; readonly endTime: number | undefined } {
  const start = startText === undefined ? undefined : parseInstant('startTime', startText);
  const end = endText === undefined ? undefined : parseInstant('endTime', endText);
  if (
    start &&
    end &&
    (start.millis > end.millis || (start.millis === end.millis && start.nanos > end.nanos))
  ) {
    throw new ApiError('VALIDATION_FAILED', ['startTime must not be after endTime']);
  }
  return {
    startTime: start && (start.nanos > 0 ? start.millis + 1 : start.millis),
    endTime: end?.millis,
  };
}
