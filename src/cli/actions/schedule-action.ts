import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import type { JobConfig } from '../../config/index.js';
import { createLogger } from '../../log/logger.js';
import { runSchedule, validateSchedule } from '../../runner/nightly-schedule.js';
import { ScheduleError } from '../../runner/schedule-error.js';
import type { CliIo } from '../cli-io.js';
import { runConfigFlags } from '../commands/run-command.js';
import type { ScheduleFlags } from '../commands/schedule-command.js';
import { UsageError } from '../exit-codes.js';
import { exitCodeOf } from '../job-errors.js';
import { checkJobSetup } from '../job-preflight.js';
import { loadConfig, logConfigured } from '../job-setup.js';
import { nightlyJob } from '../nightly-job.js';
import { checkOutputDirs } from '../output-dirs.js';
import { logRunOutcome } from '../run-outcome-log.js';

/** The body of `cardsync schedule`: run the nightly job on each tick until stopped. */
export async function scheduleAction(io: CliIo, flags: ScheduleFlags): Promise<void> {
  try {
    validateSchedule(flags.cron, flags.tz);
  } catch (error) {
    if (error instanceof ScheduleError)
      throw new UsageError(
        `${error.code === 'SCHEDULE_TIMEZONE_INVALID' ? '--tz' : '--cron'}: ${error.message}`,
      );
    throw error;
  }
  const config = await loadConfig(io, runConfigFlags(flags), true);
  checkOutputDirs(config);
  const logger = createLogger({ level: flags.logLevel ?? 'info' });
  // SIGHUP's default action ended the process at once, a run in flight with it (its row left
  // `running`, its lock held). A daemon's SIGHUP asks for a reload, and there is none to do: each
  // run reads the configuration afresh. Ignoring it also keeps a schedule started in a terminal
  // alive when the terminal closes, as nohup would.
  const onHangup = () =>
    logger.info(
      'SIGHUP: nothing to reload: each run reads the configuration, key and CA files afresh; --cron and --tz need a restart',
    );
  process.on('SIGHUP', onHangup);
  const watchMirror = mirrorWatch(logger);
  try {
    await checkJobSetup(config, logger);
    const summary = await runSchedule({
      cron: flags.cron,
      ...(flags.tz === undefined ? {} : { timezone: flags.tz }),
      signal: io.signal,
      logger,
      onScheduled: (next) =>
        io.stdout(
          flags.json
            ? `${JSON.stringify({ scheduled: flags.cron, timezone: flags.tz ?? null, next })}\n`
            : `cardsync schedule: running \`run\` on "${flags.cron}"${flags.tz ? ` (${flags.tz})` : ''}; next at ${next?.toISOString() ?? 'never'}\n`,
        ),
      job: async (runId) => {
        // Each run reads the configuration afresh, as `cardsync run` would: a key or CA file
        // renewed after a refusal (exit 3) is used by the next tick without a restart. One that
        // no longer loads, or whose reports or metrics folder cannot be written, is that run's
        // exit 2 before anything is synced, logged; the schedule goes on.
        const started = Date.now();
        let current: JobConfig;
        try {
          current = await loadConfig(io, runConfigFlags(flags), true);
          logConfigured(logger, runId, current);
          checkOutputDirs(current);
        } catch (error) {
          logRunOutcome(logger, {
            command: 'run',
            runId,
            exitCode: exitCodeOf(error),
            durationMs: Date.now() - started,
            error,
          });
          return;
        }
        watchMirror.beforeRun(current.db, runId);
        const outcome = await nightlyJob(io, current, {
          failOn: flags.failOn,
          progress: false,
          logger,
          runId,
        });
        watchMirror.afterRun(current.db);
        logRunOutcome(logger, {
          command: 'run',
          runId,
          exitCode: outcome.exitCode,
          durationMs: Date.now() - started,
          sync: outcome.sync,
          reconcile: outcome.result?.reconcile ?? null,
          reconcileSkipped: outcome.result?.reconcileSkipped ?? null,
          error: outcome.failure,
        });
      },
    });
    io.stdout(
      flags.json
        ? `${JSON.stringify({ stopped: true, ...summary })}\n`
        : `cardsync schedule: stopped after ${summary.runs} runs (${summary.skipped} ticks skipped)\n`,
    );
  } finally {
    process.off('SIGHUP', onHangup);
    logger.flush();
  }
}

/**
 * Warns when the mirror an earlier tick left is gone (deleted, or its disk swapped) before a
 * run: that run creates it anew, reads the whole history again, and the findings start over as
 * new, which the operator should hear of from the log rather than from a long run and a report
 * of old findings shown new. A mirror that never existed (the first run) is no news.
 */
function mirrorWatch(logger: Logger) {
  let last: { readonly file: string; readonly existed: boolean } | undefined;
  return {
    beforeRun(file: string, runId: string): void {
      if (last?.file === file && last.existed && !existsSync(file))
        logger.warn(
          { runId, db: file },
          'the mirror is gone since the last run: this run creates it anew and reads the whole history again; the findings start over as new',
        );
    },
    afterRun(file: string): void {
      last = { file, existed: existsSync(file) };
    },
  };
}
