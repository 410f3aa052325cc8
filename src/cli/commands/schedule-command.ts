import type { Command } from 'commander';
import { createLogger } from '../../log/logger.js';
import { runSchedule, validateSchedule } from '../../runner/nightly-schedule.js';
import { ScheduleError } from '../../runner/schedule-error.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../exit-codes.js';
import { loadConfig } from '../job-setup.js';
import { nightlyJob } from '../nightly-job.js';
import { ensureOutputDirs } from '../output-dirs.js';
import { addReconOptions } from '../recon-options.js';
import { logRunOutcome } from '../run-outcome-log.js';
import { type RunFlags, runConfigFlags } from './run-command.js';
import { addSyncOptions } from './sync-command.js';

interface ScheduleFlags extends RunFlags {
  cron: string;
  tz?: string;
}

/** `cardsync schedule`: stay up and start `run` on a cron expression, never two at once. */
export function registerScheduleCommand(program: Command, io: CliIo): void {
  addReconOptions(
    addSyncOptions(
      program
        .command('schedule')
        .description(
          'stay up and start `run` on a cron expression, never two at once; stops on SIGTERM/SIGINT',
        )
        .requiredOption(
          '--cron <expr>',
          'node-cron expression: 5 fields (minute hour day month weekday), or 6 with seconds first',
        )
        .option('--tz <zone>', "IANA time zone the expression is read in (default the host's)"),
    ),
  ).action(async (flags: ScheduleFlags) => {
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
    ensureOutputDirs(config);
    const logger = createLogger({ level: flags.logLevel ?? 'info' });
    try {
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
        job: async () => {
          const outcome = await nightlyJob(io, config, {
            failOn: flags.failOn,
            progress: false,
            logger,
          });
          logRunOutcome(logger, outcome);
        },
      });
      io.stdout(
        flags.json
          ? `${JSON.stringify({ stopped: true, ...summary })}\n`
          : `cardsync schedule: stopped after ${summary.runs} runs (${summary.skipped} ticks skipped)\n`,
      );
    } finally {
      logger.flush();
    }
  });
}
