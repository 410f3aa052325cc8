import { existsSync } from 'node:fs';
import { createLogger } from '../../log/logger.js';
import type { CliIo } from '../cli-io.js';
import type { ReconcileFlags } from '../commands/reconcile-command.js';
import { EXIT, ExitError, UsageError } from '../exit-codes.js';
import { loadConfig } from '../job-setup.js';
import { checkOutputDirs } from '../output-dirs.js';
import { reconConfigFlags } from '../recon-options.js';
import { reconcileJob } from '../reconcile-job.js';
import { formatReconcileSummary, reconcileJson } from '../reconcile-summary.js';
import { discrepanciesMessage } from '../run-summary.js';

/** The body of `cardsync reconcile`: reconcile the mirror, print the summary, exit 6 on findings. */
export async function reconcileAction(io: CliIo, flags: ReconcileFlags): Promise<void> {
  const config = await loadConfig(
    io,
    { config: flags.config, db: flags.db, ...reconConfigFlags(flags) },
    false,
  );
  if (!existsSync(config.db))
    throw new UsageError(`${config.origins.db}: no mirror at ${config.db}`);
  checkOutputDirs(config);
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
}
