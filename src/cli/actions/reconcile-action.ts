import { existsSync } from 'node:fs';
import { newRunId } from '../../run-id.js';
import type { CliIo } from '../cli-io.js';
import { commandLogger } from '../command-logger.js';
import type { ReconcileFlags } from '../commands/reconcile-command.js';
import { EXIT, ExitError, UsageError } from '../exit-codes.js';
import { exitCodeOf } from '../job-errors.js';
import { loadConfig, logConfigured } from '../job-setup.js';
import { checkOutputDirs } from '../output-dirs.js';
import { reconConfigFlags } from '../recon-options.js';
import { type ReconcileJobOutcome, reconcileJob } from '../reconcile-job.js';
import { formatReconcileSummary, reconcileJson } from '../reconcile-summary.js';
import { logRunOutcome } from '../run-outcome-log.js';
import { discrepanciesMessage } from '../run-summary.js';

/** The body of `cardsync reconcile`: reconcile the mirror, print the summary, exit 6 on findings. */
export async function reconcileAction(io: CliIo, flags: ReconcileFlags): Promise<void> {
  // The logger and the run id come before the configuration, so that a bad setting (exit 2)
  // ends with a `run finished` line as every other end does.
  const logger = commandLogger(io, flags.logLevel);
  const started = Date.now();
  const runId = newRunId(started);
  let outcome: ReconcileJobOutcome | null = null;
  let failure: unknown = null;
  try {
    const config = await loadConfig(
      io,
      { config: flags.config, db: flags.db, ...reconConfigFlags(flags) },
      false,
    );
    logConfigured(logger, runId, config);
    if (!existsSync(config.db))
      throw new UsageError(`${config.origins.db}: no mirror at ${config.db}`, {
        code: 'MIRROR_MISSING',
      });
    checkOutputDirs(config);
    outcome = await reconcileJob(config, {
      failOn: flags.failOn,
      logger,
      runId,
      signal: io.signal,
    });
    const { result } = outcome;
    if (result)
      io.stdout(
        flags.json
          ? `${JSON.stringify({ ...reconcileJson(result), exitCode: outcome.exitCode })}\n`
          : formatReconcileSummary(result),
      );
    if (outcome.error) failure = outcome.error;
    else if (outcome.exitCode === EXIT.DISCREPANCIES)
      failure = new ExitError(
        EXIT.DISCREPANCIES,
        discrepanciesMessage(result?.reconciliation ?? null, flags.failOn),
      );
  } catch (error) {
    failure = error;
  }
  logRunOutcome(logger, {
    command: 'reconcile',
    runId,
    exitCode: failure === null ? EXIT.OK : exitCodeOf(failure),
    durationMs: Date.now() - started,
    reconcile: outcome?.result ?? null,
    error: failure,
  });
  logger.flush();
  if (failure !== null) throw failure;
}
