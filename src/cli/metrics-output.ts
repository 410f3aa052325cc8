import type { Logger } from 'pino';
import type { JobMetrics } from '../runner/job-metrics.js';
import { writeMetricsFile } from '../runner/metrics-file.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { EXIT_OUTCOMES, isSuccess } from './job-exit.js';

/**
 * Write the metrics file of a finished command, when one is configured; not after a usage or
 * configuration error (exit 2 changes nothing, this file included). A file that cannot be
 * written is logged, not fatal: the run itself did its work, and a stale file shows in
 * monitoring as a last run that is too old.
 */
export function recordMetrics(
  file: string | undefined,
  logger: Logger,
  metrics: Omit<JobMetrics, 'outcome' | 'lastSuccessAt' | 'exitCode'> & { exitCode: ExitCode },
): void {
  if (file === undefined || metrics.exitCode === EXIT.USAGE) return;
  try {
    writeMetricsFile(file, {
      ...metrics,
      outcome: EXIT_OUTCOMES[metrics.exitCode],
      success: isSuccess(metrics.exitCode),
    });
  } catch (error) {
    logger.error({ err: error, file }, 'cannot write the metrics file');
  }
}
