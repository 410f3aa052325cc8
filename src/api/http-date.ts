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
    const m = MONTHS.indexOf(month ?? '');
    // A leap second is read as the second before it.
    const at = (y: number) => {
      // setUTCFullYear, not Date.UTC, which reads the years 0 to 99 as 1900 to 1999.
      const date = new Date(Date.UTC(2000, 0, 1, h, min, Math.min(s, 59)));
      return date.setUTCFullYear(y, m, d);
    };
    let ms = at(Number(year));
    if (year?.length === 2) {
      // A two-digit year whose timestamp is more than 50 years ahead is of the past century
      // (RFC 9110): the timestamp, not its year's first day, so 31-Dec-76 read in late 2026.
      ms = at(2000 + Number(year));
      if (ms > nowMs + YEARS_50_MS) ms = at(1900 + Number(year));
    }
    // A date rolls 31 Nov over into 1 Dec: a day the month lacks is no date.
    return new Date(ms).getUTCDate() === d ? ms : undefined;
  }
  return undefined;
}
