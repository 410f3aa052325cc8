/** Days in each month of a common year; February gains one in a leap year. */
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether a `createdAt`, already checked against the contract's `Timestamp` pattern, is written
 * the mirror's way (`YYYY-MM-DDTHH:MM:SS.sssZ`) and names a real instant: the service's own form,
 * and so every record of a sync, so the test must cost next to nothing (digits read in place, no
 * parse). Any other form, and a date or time that does not exist (`2026-02-30`, `24:00`, a leap
 * second, which `Date.parse` rolls over or refuses), goes through `utcInstant`.
 */
export function isCanonicalTimestamp(text: string): boolean {
  return (
    text.length === 24 &&
    text.charCodeAt(19) === 46 /* . */ &&
    text.charCodeAt(23) === 90 /* Z */ &&
    twoDigits(text, 11) < 24 &&
    twoDigits(text, 14) < 60 &&
    twoDigits(text, 17) < 60 &&
    isRealDate(text)
  );
}

/** Whether the date of a `YYYY-MM-DD…` text exists. */
function isRealDate(text: string): boolean {
  const month = twoDigits(text, 5);
  const day = twoDigits(text, 8);
  if (month < 1 || month > 12 || day < 1) return false;
  if (day <= 28) return true;
  const year = twoDigits(text, 0) * 100 + twoDigits(text, 2);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (MONTH_DAYS[month - 1] as number) + (month === 2 && leap ? 1 : 0);
}

/** The number the two ASCII digits at `at` write. */
function twoDigits(text: string, at: number): number {
  return (text.charCodeAt(at) - 48) * 10 + text.charCodeAt(at + 1) - 48;
}
