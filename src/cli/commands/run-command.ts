import type { Command } from 'commander';
import type { ConfigFlags } from '../../config/index.js';
import { createLogger } from '../../log/logger.js';
import type { CliIo } from '../cli-io.js';
import { ExitError } from '../exit-codes.js';
import { loadConfig } from '../job-setup.js';
import { nightlyJob } from '../nightly-job.js';
import { ensureOutputDirs } from '../output-dirs.js';
import { addReconOptions, type ReconFlags, reconConfigFlags } from '../recon-options.js';
import { formatRunSummary, runExitMessage, runJson } from '../run-summary.js';
import { addSyncOptions } from './sync-command.js';

/** The flags of `run` and `schedule`: the sync's and the reconciliation's. */
export interface RunFlags extends ReconFlags {
  config?: string;
  db?: string;
  baseUrl?: string;
  caFile?: string;
  merchantId?: string;
  since?: string;
  lookbackHours?: string;
  concurrency?: string;
  safetyLagSeconds?: string;
  json: boolean;
  progress: boolean;
  logLevel?: string;
}

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
    const config = await loadConfig(io, runConfigFlags(flags), true);
    ensureOutputDirs(config);
    const logger = createLogger({ level: flags.logLevel ?? (io.stderrIsTTY ? 'warn' : 'info') });
    try {
      const outcome = await nightlyJob(io, config, {
        failOn: flags.failOn,
        progress: io.stderrIsTTY && flags.progress,
        logger,
      });
      const { result } = outcome;
      if (result)
        io.stdout(
          flags.json ? `${JSON.stringify(runJson(result))}\n` : formatRunSummary(result, config.db),
        );
      if (outcome.error) throw outcome.error;
      if (result && outcome.exitCode !== 0)
        throw new ExitError(outcome.exitCode, runExitMessage(result, flags.failOn));
    } finally {
      logger.flush();
    }
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
