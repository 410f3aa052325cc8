const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * An ISO 8601 date-time with a zone (`Z`, `+02:00` or `+0200`), normalised to UTC with
 * milliseconds, as the mirror stores every instant (it compares them as text). A date alone or
 * a time without a zone is refused: local time differs between the upstream, the merchant's
 * books and this host. Digits past the millisecond are dropped. The journal's `submittedAt`
 * and the upstream's `createdAt` both go through it.
 * @example utcInstant('2026-11-21T03:00:00+01:00') // '2026-11-21T02:00:00.000Z'
 * @returns undefined when `text` is not such an instant, or names no real date.
 */
export function utcInstant(text: string): string | undefined {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second = '0', fraction = '', zone = 'Z'] = match;
  const fields = [year, month, day, hour, minute, second].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [y, mo, d, h, mi, s] = fields;
  if (h > 23 || mi > 59 || s > 59) return undefined;
  // Not Date.UTC, which reads years 0 to 99 as 1900 to 1999.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  // 2026-02-30 rolls over to March 2; a real date reads back the same.
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d)
    return undefined;
  date.setUTCHours(h, mi, s, Number(fraction.padEnd(3, '0').slice(0, 3)));
  const offset = zoneMinutes(zone);
  if (offset === undefined) return undefined;
  return new Date(date.getTime() - offset * 60_000).toISOString();
}

function zoneMinutes(zone: string): number | undefined {
  if (zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2, 4));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
