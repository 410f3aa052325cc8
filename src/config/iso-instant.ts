import { ConfigError } from './config-error.js';

const DATE = String.raw`(\d{4})-(\d{2})-(\d{2})`;
const TIME = String.raw`T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})`;
const ISO = new RegExp(`^${DATE}(?:${TIME})?$`);

const EXPECTED =
  'expected an ISO 8601 date (2025-01-01) or date-time with offset (2025-01-01T00:00:00Z)';

/**
 * An instant from an ISO 8601 date (midnight UTC) or date-time with an offset, normalised to
 * `2025-01-01T00:00:00.000Z`. A date-time without an offset is refused: it would mean the
 * host's local time, which differs between a laptop and the scheduler.
 *
 * @example
 * parseInstant('--since', '2025-01-01T02:00:00+02:00'); // '2025-01-01T00:00:00.000Z'
 * @throws ConfigError naming `key` for text that is not such an instant, or not a real date.
 */
export function parseInstant(key: string, text: string): string {
  const match = ISO.exec(text);
  const fail = () => new ConfigError(key, `${EXPECTED}, got ${JSON.stringify(text.slice(0, 60))}`);
  if (!match) throw fail();
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = ''] = match;
  const at = new Date(0);
  at.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  at.setUTCHours(
    Number(hour),
    Number(minute),
    Number(second),
    Number(fraction.padEnd(3, '0').slice(0, 3)),
  );
  // Date rolls 2025-02-30 over to March 2; a real date reads back the same.
  const real =
    at.getUTCFullYear() === Number(year) &&
    at.getUTCMonth() === Number(month) - 1 &&
    at.getUTCDate() === Number(day) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second) < 60;
  const zone = match[8] ?? 'Z';
  const offset = zone === 'Z' ? 0 : zoneMinutes(zone);
  if (!real || offset === undefined) throw fail();
  return new Date(at.getTime() - offset * 60_000).toISOString();
}

/** Minutes east of UTC for `+hh:mm` / `-hh:mm`, or undefined when out of range. */
function zoneMinutes(zone: string): number | undefined {
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}
