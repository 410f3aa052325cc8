import type { Command } from 'commander';
import type { CliIo } from '../cli-io.js';
import { addReconOptions } from '../recon-options.js';
import type { RunFlags } from './run-command.js';
import { addSyncOptions } from './sync-command.js';

/** The flags of `cardsync schedule`: those of `run`, and when. */
export interface ScheduleFlags extends RunFlags {
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
    const { scheduleAction } = await import('../actions/schedule-action.js');
    await scheduleAction(io, flags);
  });
}
