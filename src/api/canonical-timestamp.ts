/**
 * Timestamps as the mirror keeps them: `YYYY-MM-DDTHH:MM:SS.sssZ`. The mirror compares
 * `created_at` as text (windows, spans, the count audit), which holds only if every value is
 * written the same way; an upstream may write seconds, more fractional digits, or `+00:00`.
 */

const PARTS = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|[+-]00:?00)$/;

/**
 * Whether `text`, already checked against the contract's `Timestamp` pattern, is written the
 * mirror's way: the service's own form, and every record of a sync, so it must be cheap.
 */
export function isCanonicalTimestamp(text: string): boolean {
  return text.length === 24 && text.charCodeAt(19) === 46 /* . */ && text.charCodeAt(23) === 90;
}

/**
 * `text` in the mirror's form: milliseconds (digits past them dropped: `createdAt` is compared
 * in whole milliseconds) and `Z`; undefined when it is no real instant (`2026-02-30T...`).
 * @example canonicalTimestamp('2026-11-21T02:00:00+00:00') // '2026-11-21T02:00:00.000Z'
 */
export function canonicalTimestamp(text: string): string | undefined {
  const m = PARTS.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const at = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  const real =
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === month - 1 &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hour &&
    at.getUTCMinutes() === minute &&
    at.getUTCSeconds() === second;
  return real ? at.toISOString() : undefined;
}
