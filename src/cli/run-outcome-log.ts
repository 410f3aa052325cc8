import type { Logger } from 'pino';
import { errorCodeOf } from './error-json.js';
import { EXIT, ExitError } from './exit-codes.js';
import { EXIT_OUTCOMES, isSuccess } from './job-exit.js';
import type { NightlyJobOutcome } from './nightly-job.js';

/**
 * Log how one scheduled run ended, as one pino line (`run finished`). A run that failed carries
 * `error: {code, message}` as `--json` gives it: pino's `err` would append each cause's message
 * to the error's own (an ExitError repeats its cause's) and bury the code in a stack trace.
 */
export function logRunOutcome(logger: Logger, outcome: NightlyJobOutcome): void {
  const { result, exitCode } = outcome;
  const current = result?.reconcile?.reconciliation.current ?? [];
  const fields = {
    runId: outcome.runId,
    exitCode,
    outcome: EXIT_OUTCOMES[exitCode],
    durationMs: result?.durationMs ?? null,
    sync: result?.sync.outcome ?? null,
    findings: result?.reconcile
      ? {
          current: current.length,
          new: current.filter((f) => f.state === 'new').length,
          acknowledged: result.reconcile.reconciliation.acknowledged.length,
          resolved: result.reconcile.reconciliation.resolved.length,
        }
      : null,
    dataComplete: result?.reconcile?.data.complete ?? null,
    reportDir: result?.reconcile?.reportDir ?? null,
    reconcileSkipped: result?.reconcileSkipped ?? null,
    ...(outcome.error ? errorFields(outcome.error) : {}),
  };
  if (isSuccess(exitCode)) logger.info(fields, 'run finished');
  else if (exitCode === EXIT.INTERNAL) logger.error(fields, 'run finished');
  else logger.warn(fields, 'run finished');
}

/** `error` as `--json` gives it, plus the stack of an internal error (a bug, to report). */
function errorFields(error: unknown) {
  if (error instanceof ExitError)
    return { error: { code: errorCodeOf(error), message: error.message } };
  const message = `internal error: ${error instanceof Error ? error.message : String(error)}`;
  return { error: { code: errorCodeOf(error), message }, err: error };
}
