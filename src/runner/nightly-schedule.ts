import { type Logger as CronLogger, createTask, validateDetailed } from 'node-cron';
import type { Logger } from 'pino';
import { newRunId } from '../run-id.js';
import { ScheduleError } from './schedule-error.js';
import { skippedTickAt } from './skipped-tick.js';

const SECOND = 1000;
const DAY_MS = 86_400_000;
/**
 * How late a tick may still start (node-cron's default is one second): a host suspended or a
 * VM paused over 02:00 wakes minutes later, and the night's run starts then, as cron's would,
 * instead of being logged as missed. Never later than the expression's next tick.
 */
const LATE_TICK_TOLERANCE_MS = 3_600_000;
/**
 * How often the wall clock is read between ticks. Timers count no time the host is suspended, so
 * node-cron's one timer up to the next tick (up to a day) fires as much later as the host slept:
 * asleep from 23:00 to 02:20, it fired at 05:20, past the tolerance, and the night had no run.
 */
const WAKE_CHECK_MS = 60_000;
/** How late past its time a tick is taken for one the host slept through, not a busy timer. */
const WAKE_SLACK_MS = 5_000;

/** Dependencies and options of {@link runSchedule}. */
export interface ScheduleOptions {
  /** A node-cron expression: 5 fields, or 6 with seconds first. */
  readonly cron: string;
  /** An IANA time zone the expression is read in; the host's when absent. */
  readonly timezone?: string;
  /** Aborted to stop: no new run starts, and the schedule ends once the run in flight has. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /**
   * One run, under `runId`, the id its `run starting` line names. It should stop on `signal`
   * itself; a rejection is logged and the schedule goes on.
   */
  readonly job: (runId: string) => Promise<void>;
  /** Called once ticking has started, with the first run's time. */
  readonly onScheduled?: (next: Date | null) => void;
}

/** What a schedule did before it was stopped. */
export interface ScheduleResult {
  readonly runs: number;
  /** Ticks that came while a run was still in progress, and were skipped. */
  readonly skipped: number;
}

/**
 * Check a cron expression and time zone before scheduling anything.
 * @throws ScheduleError SCHEDULE_CRON_INVALID or SCHEDULE_TIMEZONE_INVALID, saying what is wrong.
 */
export function validateSchedule(cron: string, timezone?: string): void {
  const checked = validateDetailed(cron);
  if (!checked.valid) {
    const why = checked.errors.map((e) => e.message).join('; ');
    throw new ScheduleError(
      'SCHEDULE_CRON_INVALID',
      `expected a cron expression of 5 fields (minute hour day month weekday) or 6 (seconds first), got ${JSON.stringify(cron)}${why ? `: ${why}` : ''}`,
    );
  }
  if (timezone !== undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    } catch {
      throw new ScheduleError(
        'SCHEDULE_TIMEZONE_INVALID',
        `expected an IANA time zone such as Europe/Berlin or UTC, got ${JSON.stringify(timezone)}`,
      );
    }
  }
  // node-cron checks each field alone: a day of the month and an nth weekday that never fall
  // on the same day (the 15th that is a month's first Monday) pass, and starting the task throws.
  const task = createTask(cron, () => {}, timezone === undefined ? {} : { timezone });
  try {
    task.getNextRuns(1);
  } catch {
    throw new ScheduleError(
      'SCHEDULE_CRON_INVALID',
      `${JSON.stringify(cron)} names no time in the next hundred years (its day of the month, month and weekday never coincide)`,
    );
  } finally {
    void task.destroy();
  }
}

/**
 * Start `job` on every tick of `cron` until `signal` is aborted, never two at once: a tick that
 * comes while a run is in progress is skipped and logged (the mirror lock also keeps out runs of
 * other processes). On abort the schedule stops ticking, waits for the run in flight (which stops
 * on the same signal as a sync does: finished windows committed) and resolves.
 * @example await runSchedule({ cron: '0 2 * * *', timezone: 'Europe/Berlin', signal, logger, job });
 * @throws ScheduleError when the expression or the time zone is invalid.
 */
export async function runSchedule(options: ScheduleOptions): Promise<ScheduleResult> {
  validateSchedule(options.cron, options.timezone);
  const logger = options.logger.child({ module: 'schedule' });
  /** The run in progress: its id, which a skipped tick names, and its end. */
  // Set by the ticks, so typed by a cast: TypeScript would narrow an initialised `null` for good.
  let running = null as { readonly runId: string; readonly done: Promise<void> } | null;
  let runs = 0;
  let skipped = 0;
  // The expression read on wall times alone, to see whether it names one a spring-forward skips.
  const wallTimes = createTask(options.cron, () => {}, { timezone: 'UTC' });
  let skippedTimer: NodeJS.Timeout | undefined;
  /** The next tick as planned (Unix ms): node-cron's, or the clocks' jump; null when none. */
  let due: number | null = null;
  /** The next tick, arming one at the clocks' jump when they skip a time the expression names. */
  const planNext = (): Date | null => {
    clearTimeout(skippedTimer);
    const regular = task.getNextRun();
    due = regular?.getTime() ?? null;
    if (regular === null) return null;
    const now = Date.now();
    const jump = skippedTickAt({
      timeZone: options.timezone,
      from: now,
      until: regular.getTime(),
      matchesWall: (wall) => wallTimes.match(wall),
    });
    if (jump === null) return regular;
    // At most a day at a time, as node-cron waits: a longer delay overflows a timer.
    skippedTimer = setTimeout(
      () => {
        if (Date.now() < jump) return void planNext();
        logger.info("the clocks jumped over this tick's time; it runs now, as cron would");
        tick();
      },
      Math.min(jump - now, DAY_MS),
    );
    due = jump;
    return new Date(jump);
  };
  const tick = () => {
    if (options.signal.aborted) return;
    planNext();
    if (running) {
      skipped += 1;
      logger.warn(
        { skipped, running: running.runId },
        'a run is still in progress; this tick is skipped',
      );
      return;
    }
    runs += 1;
    // Chosen here, so that the run's first line names it as all its later lines do.
    const runId = newRunId(Date.now());
    logger.info({ run: runs, runId }, 'run starting');
    const run = options.job(runId).catch((error: unknown) => {
      logger.error({ err: error, runId }, 'run failed');
    });
    running = {
      runId,
      done: run.finally(() => {
        running = null;
      }),
    };
  };
  const task = createTask(options.cron, tick, {
    name: 'cardsync-run',
    missedExecutionTolerance: LATE_TICK_TOLERANCE_MS,
    ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
    logger: cronLogger(logger),
  });
  /** The latest time after `from` up to `until` (Unix ms) that the expression names, else `from`. */
  const latestTick = (from: number, until: number): number => {
    for (let at = Math.floor(until / SECOND) * SECOND; at > from; at -= SECOND)
      if (task.match(new Date(at))) return at;
    return from;
  };
  await task.start();
  /**
   * A tick the host slept through, which node-cron's timer would start only as late as the host
   * slept: the latest tick due since is started now when it is at most the tolerance late, as
   * node-cron does for a timer that fires late, and node-cron's timer is set again from the wall
   * clock, so that it neither starts that tick a second time nor reports it missed.
   */
  const wakeCheck = setInterval(() => {
    const now = Date.now();
    if (due === null || now < due + WAKE_SLACK_MS) return;
    const slept = due;
    task.stop();
    task.start();
    const latest = latestTick(Math.max(slept, now - LATE_TICK_TOLERANCE_MS - SECOND), now);
    if (now - latest <= LATE_TICK_TOLERANCE_MS) {
      logger.info({ due: new Date(latest) }, 'the host was asleep at this tick; it runs now');
      tick();
      return;
    }
    logger.warn(
      { due: new Date(slept) },
      'the host was asleep at this tick and woke over an hour after it; it is skipped',
    );
    planNext();
  }, WAKE_CHECK_MS);
  const next = planNext();
  logger.info({ cron: options.cron, timezone: options.timezone ?? null, next }, 'scheduled');
  options.onScheduled?.(next);
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await task.destroy();
  clearInterval(wakeCheck);
  clearTimeout(skippedTimer);
  await wallTimes.destroy();
  if (running) {
    logger.info('stopping: waiting for the run in progress to stop');
    await running.done;
  }
  logger.info({ runs, skipped }, 'schedule stopped');
  return { runs, skipped };
}

/** node-cron's own messages (a missed tick, a failed start) as pino lines. */
function cronLogger(logger: Logger): CronLogger {
  return {
    info: (message) => logger.info(message),
    warn: (message) => logger.warn(message),
    error: (message, err) =>
      message instanceof Error ? logger.error({ err: message }) : logger.error({ err }, message),
    debug: (message, err) =>
      message instanceof Error ? logger.debug({ err: message }) : logger.debug({ err }, message),
  };
}
