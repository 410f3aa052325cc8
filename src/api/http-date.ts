const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const LONG_DAY = '(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)';
const MONTH = `(${MONTHS.join('|')})`;
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const YEARS_50_MS = 50 * 365.25 * 86_400_000;

/** One of the three forms; `fields` gives the group of day, month, year, hour, minute, second. */
interface DateForm {
  readonly pattern: RegExp;
  readonly fields: readonly [number, number, number, number, number, number];
}

const FORMS: readonly DateForm[] = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  {
    pattern: new RegExp(`^${DAY}, (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`),
    fields: [1, 2, 3, 4, 5, 6],
  },
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  {
    pattern: new RegExp(`^${LONG_DAY}, (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`),
    fields: [1, 2, 3, 4, 5, 6],
  },
  // asctime: Sun Nov  6 08:49:37 1994
  {
    pattern: new RegExp(`^${DAY} ${MONTH} ([ \\d]\\d) ${TIME} (\\d{4})$`),
    fields: [2, 1, 6, 3, 4, 5],
  },
];

/**
 * An HTTP-date (RFC 9110 section 5.6.7: IMF-fixdate, or the obsolete RFC 850 and asctime forms)
 * in epoch ms; undefined for anything else. Date.parse is no judge of a header: it reads "1" as
 * the year 2001 and "12345" as the year 12345.
 * @example parseHttpDate('Sat, 21 Nov 2026 02:00:05 GMT') // 1795226405000
 */
export function parseHttpDate(text: string, nowMs = Date.now()): number | undefined {
  for (const { pattern, fields } of FORMS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const [day, month, year, hour, minute, second] = fields.map((i) => match[i] ?? '');
    const [d, h, min, s] = [day, hour, minute, second].map((part) => Number(part?.trim()));
    if (h === undefined || min === undefined || s === undefined || d === undefined)
      return undefined;
    if (h > 23 || min > 59 || s > 60) return undefined;
    let y = Number(year);
    if (year?.length === 2) {
      // A two-digit year more than 50 years ahead is of the past century (RFC 9110).
      y += 2000;
      if (Date.UTC(y, 0) > nowMs + YEARS_50_MS) y -= 100;
    }
    // A leap second is read as the second before it.
    const at = Date.UTC(y, MONTHS.indexOf(month ?? ''), d, h, min, Math.min(s, 59));
    // Date.UTC rolls 31 Nov over into 1 Dec: a day the month lacks is no date.
    return new Date(at).getUTCDate() === d ? at : undefined;
  }
  return undefined;
}
