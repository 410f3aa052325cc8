/** A closed range of `createdAt` instants, in epoch milliseconds: `start <= t <= end`. */
export interface TimeRange {
  readonly start: number;
  readonly end: number;
}

/** Sort and merge ranges that overlap or touch (`a.end + 1 >= b.start`). */
export function mergeRanges(ranges: readonly TimeRange[]): TimeRange[] {
  const sorted = ranges.filter((r) => r.end >= r.start).sort((a, b) => a.start - b.start);
  const merged: TimeRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last && range.start <= last.end + 1)
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, range.end) };
    else merged.push(range);
  }
  return merged;
}

/** The parts of `range` that no range of `done` covers. */
export function subtractRanges(range: TimeRange, done: readonly TimeRange[]): TimeRange[] {
  const gaps: TimeRange[] = [];
  let cursor = range.start;
  for (const covered of mergeRanges(done)) {
    if (covered.end < cursor) continue;
    if (covered.start > range.end) break;
    if (covered.start > cursor) gaps.push({ start: cursor, end: covered.start - 1 });
    cursor = Math.max(cursor, covered.end + 1);
    if (cursor > range.end) break;
  }
  if (cursor <= range.end) gaps.push({ start: cursor, end: range.end });
  return gaps;
}

/**
 * Cut `range` into at most `parts` consecutive pieces of about equal length that share their
 * boundaries (`[a, m]`, `[m, b]`), so a record exactly on a boundary is read by both sides
 * whatever the upstream's inclusiveness. A range of one instant cannot be cut.
 */
export function splitRange(range: TimeRange, parts: number): TimeRange[] {
  const width = range.end - range.start;
  const count = Math.max(1, Math.min(Math.floor(parts), width));
  if (count < 2) return [range];
  const pieces: TimeRange[] = [];
  let start = range.start;
  for (let i = 1; i <= count; i++) {
    const end = i === count ? range.end : range.start + Math.floor((width * i) / count);
    pieces.push({ start, end });
    start = end;
  }
  return pieces;
}

/** True when {@link splitRange} can cut the range. */
export function canSplit(range: TimeRange): boolean {
  return range.end - range.start >= 2;
}

/** ISO 8601 UTC text with milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Where the history before a merchant's oldest card begins (2000-01-01). A range that starts
 * there is asked for with no `startTime` (the interface lets a reader leave either bound out):
 * no upstream is asked about a date it might refuse, and a row dated earlier still counts. Only
 * there: a range starting earlier (`--since 1999-01-01`) keeps its bound, or the rows before
 * `--since` were read.
 */
export const HISTORY_FLOOR = Date.UTC(2000, 0, 1);

/**
 * The `startTime` of a query over a range starting at `start`, widened by 1 ms (reference-model
 * section 7 leaves the filters' inclusiveness open); none from {@link HISTORY_FLOOR}.
 */
export function startTimeFilter(start: number): { startTime?: string } {
  const from = lowerBound(start, 1);
  return from === '' ? {} : { startTime: from };
}

/**
 * The lowest `created_at` (as the mirror compares them, as text) of a range starting at `start`,
 * widened by `widenMs`: none from {@link HISTORY_FLOOR}, where the upstream is asked with no
 * `startTime`. The audit counts and lists the mirror's rows from it, and a window's record
 * starts there: a row dated before the floor that the audit counted but could not list kept its
 * range one above the upstream for good, and one a window read was never taken for read (its
 * quarantine row stayed open, and its range was read again every night).
 */
export function lowerBound(start: number, widenMs = 0): string {
  return start === HISTORY_FLOOR ? '' : isoTime(start - widenMs);
}
