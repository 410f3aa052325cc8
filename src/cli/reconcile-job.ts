import type { Logger } from 'pino';
import type { JobConfig } from '../config/index.js';
import { newRunId } from '../run-id.js';
import type { ReconcileResult } from '../runner/reconcile-mirror.js';
import { runReconcile } from '../runner/run-reconcile.js';
import type { ExitCode } from './exit-codes.js';
import { exitCodeOf, jobExit } from './job-errors.js';
import { type FailOn, reconcileExitCode } from './job-exit.js';
import { openMirrorOrExit } from './job-setup.js';
import { recordMetrics } from './metrics-output.js';

/** How one reconciliation ended: its result when it ran, else the error that stopped it. */
export interface ReconcileJobOutcome {
  readonly result: ReconcileResult | null;
  readonly exitCode: ExitCode;
  readonly error: unknown;
}

/**
 * `cardsync reconcile` from a loaded configuration, on an existing mirror, with its metrics
 * file; `signal` (SIGTERM, SIGINT) stops it, exit 4, if it has not begun recording. Never throws.
 */
export async function reconcileJob(
  config: JobConfig,
  options: { failOn: FailOn | undefined; logger: Logger; runId?: string; signal?: AbortSignal },
): Promise<ReconcileJobOutcome> {
  const started = Date.now();
  const runId = options.runId ?? newRunId(started);
  let outcome: ReconcileJobOutcome;
  try {
    const mirror = openMirrorOrExit(config.db, config.origins.db);
    try {
      const result = await runReconcile({
        db: mirror.db,
        settings: config.recon,
        reportsDir: config.reportsDir,
        logger: options.logger,
        runId,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      outcome = {
        result,
        exitCode: reconcileExitCode(result.reconciliation, options.failOn),
        error: null,
      };
    } finally {
      await mirror.close();
    }
  } catch (error) {
    const mapped = jobExit(error, { file: config.db, syncing: false });
    outcome = { result: null, exitCode: exitCodeOf(mapped), error: mapped };
  }
  recordMetrics(config.metricsFile, options.logger.child({ runId }), {
    command: 'reconcile',
    startedAt: started,
    finishedAt: Date.now(),
    exitCode: outcome.exitCode,
    reconcile: outcome.result,
  });
  return outcome;
}
