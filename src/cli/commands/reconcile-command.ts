import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { createLogger } from '../../log/logger.js';
import type { CliIo } from '../cli-io.js';
import { EXIT, ExitError, UsageError } from '../exit-codes.js';
import { loadConfig } from '../job-setup.js';
import { logLevelOption } from '../option-parsers.js';
import { ensureOutputDirs } from '../output-dirs.js';
import { addReconOptions, type ReconFlags, reconConfigFlags } from '../recon-options.js';
import { reconcileJob } from '../reconcile-job.js';
import { formatReconcileSummary, reconcileJson } from '../reconcile-summary.js';
import { discrepanciesMessage } from '../run-summary.js';

interface ReconcileFlags extends ReconFlags {
  config?: string;
  db?: string;
  json: boolean;
  logLevel?: string;
}

/** `cardsync reconcile`: run the checks on the mirror, record the findings, write the reports. */
export function registerReconcileCommand(program: Command, io: CliIo): void {
  addReconOptions(
    program
      .command('reconcile')
      .description(
        'run the checks of reference-model.md section 6 on the mirror and write the reports',
      )
      .option('--config <file>', 'JSON configuration file')
      .option('--db <file>', 'the SQLite mirror (CARDSYNC_DB; default ./data/cardsync.sqlite)')
      .option('--json', 'print the result as JSON on stdout', false)
      .option(
        '--log-level <level>',
        'pino level for the JSON logs on stderr',
        logLevelOption('--log-level'),
      ),
  ).action(async (flags: ReconcileFlags) => {
    const config = await loadConfig(
      io,
      { config: flags.config, db: flags.db, ...reconConfigFlags(flags) },
      false,
    );
    if (!existsSync(config.db)) throw new UsageError(`CARDSYNC_DB: no mirror at ${config.db}`);
    ensureOutputDirs(config);
    const logger = createLogger({ level: flags.logLevel ?? (io.stderrIsTTY ? 'warn' : 'info') });
    try {
      const outcome = await reconcileJob(config, { failOn: flags.failOn, logger });
      const { result } = outcome;
      if (result)
        io.stdout(
          flags.json
            ? `${JSON.stringify({ ...reconcileJson(result), exitCode: outcome.exitCode })}\n`
            : formatReconcileSummary(result),
        );
      if (outcome.error) throw outcome.error;
      if (outcome.exitCode === EXIT.DISCREPANCIES)
        throw new ExitError(
          EXIT.DISCREPANCIES,
          discrepanciesMessage(result?.reconciliation.current.length ?? 0, flags.failOn),
        );
    } finally {
      logger.flush();
    }
  });
}
