import type { Command } from 'commander';
import type { ConfigFlags } from '../../config/index.js';
import type { CliIo } from '../cli-io.js';
import { addReconOptions, type ReconFlags, reconConfigFlags } from '../recon-options.js';
import { addSyncOptions, type SyncFlags } from './sync-command.js';

/** The flags of `run` and `schedule`: the sync's and the reconciliation's. */
export interface RunFlags extends SyncFlags, ReconFlags {}

/** `cardsync run`: the nightly job, sync then reconcile, under one run id and one lock. */
export function registerRunCommand(program: Command, io: CliIo): void {
  addReconOptions(
    addSyncOptions(
      program
        .command('run')
        .description(
          'the nightly job: sync, then reconcile and write the reports, under one run id',
        ),
    ),
  ).action(async (flags: RunFlags) => {
    const { runAction } = await import('../actions/run-action.js');
    await runAction(io, flags);
  });
}

/** The configuration flags of `run` and `schedule`. */
export function runConfigFlags(flags: RunFlags): ConfigFlags {
  return {
    config: flags.config,
    db: flags.db,
    baseUrl: flags.baseUrl,
    caFile: flags.caFile,
    merchantId: flags.merchantId,
    since: flags.since,
    lookbackHours: flags.lookbackHours,
    concurrency: flags.concurrency,
    safetyLagSeconds: flags.safetyLagSeconds,
    ...reconConfigFlags(flags),
  };
}
