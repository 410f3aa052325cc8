const SECOND = 1000;
const HOUR = 3_600_000;

/** What {@link skippedTickAt} looks at. */
export interface SkippedTickQuery {
  /** An IANA time zone; the host's when absent. */
  readonly timeZone: string | undefined;
  /** Look after this instant (Unix ms)... */
  readonly from: number;
  /** ...and before this one: the next tick node-cron will start on its own. */
  readonly until: number;
  /** Whether the expression names a wall time, given as a UTC date (02:30 local as 02:30Z). */
  readonly matchesWall: (wall: Date) => boolean;
}

/**
 * The instant the clocks of `timeZone` jump forward over a wall time the expression names, for
 * the first such jump between `from` and `until`; null when there is none. node-cron ticks
 * only on wall times that exist, so `0 2 * * *` in Europe/Berlin would not tick at all on the
 * night the clocks go from 01:59:59 to 03:00; cron runs such a job as the clocks jump, and so
 * does the schedule with this instant.
 * @example skippedTickAt({ timeZone: 'Europe/Berlin', from, until: task.getNextRun().getTime(), matchesWall })
 */
export function skippedTickAt(query: SkippedTickQuery): number | null {
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: query.timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const offset = (at: number) => wallTime(format, at) - at;
  let start = Math.floor(query.from / SECOND) * SECOND;
  let before = offset(start);
  while (start < query.until) {
    const end = Math.min(start + HOUR, Math.ceil(query.until / SECOND) * SECOND);
    const after = offset(end);
    if (after > before) {
      const jump = firstAtOffset(offset, start, end, after);
      if (jump > query.from && jump < query.until && gapMatches(query, jump, before, after))
        return jump;
    }
    start = end;
    before = after;
  }
  return null;
}

/** The wall time of `at` (whole seconds) in `format`'s zone, as Unix ms of that time in UTC. */
function wallTime(format: Intl.DateTimeFormat, at: number): number {
  const parts = Object.fromEntries(
    format.formatToParts(new Date(at)).map((p) => [p.type, Number(p.value)]),
  ) as Record<string, number>;
  return Date.UTC(
    parts.year ?? 0,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
}

/** The first whole second in `(low, high]` whose offset is `after` (`high`'s). */
function firstAtOffset(offset: (at: number) => number, low: number, high: number, after: number) {
  let lo = low;
  let hi = high;
  while (hi - lo > SECOND) {
    const mid = lo + Math.floor((hi - lo) / 2 / SECOND) * SECOND;
    if (offset(mid) === after) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Whether a wall time the clocks skip at `jump` (from offset `before` to `after`) is named. */
function gapMatches(query: SkippedTickQuery, jump: number, before: number, after: number) {
  for (let wall = jump + before; wall < jump + after; wall += SECOND)
    if (query.matchesWall(new Date(wall))) return true;
  return false;
}
