import type { Severity } from '../recon/check-code.js';
import type { Reconciliation } from '../recon/findings-store.js';
import type { SyncOutcome } from '../sync/sync-result.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** The severities `--fail-on` accepts. */
export type FailOn = Extract<Severity, 'error' | 'warning'>;

const AT_OR_ABOVE: Readonly<Record<FailOn, readonly Severity[]>> = {
  error: ['error'],
  warning: ['error', 'warning'],
};

/** The current (unacknowledged) findings at or above `--fail-on`'s severity: what exit 6 is for. */
export function failingCount(reconciliation: Reconciliation, failOn: FailOn | undefined): number {
  if (failOn === undefined) return 0;
  return reconciliation.current.filter((f) => AT_OR_ABOVE[failOn].includes(f.severity)).length;
}

/** Whether `--fail-on` applies: current (unacknowledged) findings at or above the severity. */
export function failsOn(reconciliation: Reconciliation, failOn: FailOn | undefined): boolean {
  return failingCount(reconciliation, failOn) > 0;
}

/** `cardsync reconcile`: 6 when `--fail-on` applies, else 0 (discrepancies are data). */
export function reconcileExitCode(
  reconciliation: Reconciliation,
  failOn: FailOn | undefined,
): ExitCode {
  return failsOn(reconciliation, failOn) ? EXIT.DISCREPANCIES : EXIT.OK;
}

/**
 * `cardsync run`: the sync's code wins (3 when a key was refused, 4 when incomplete or
 * stopped), even when the reconciliation that followed has findings; then 6 when `--fail-on`
 * applies; else 0.
 */
export function nightlyExitCode(
  sync: SyncOutcome,
  reconciliation: Reconciliation | null,
  failOn: FailOn | undefined,
): ExitCode {
  if (sync === 'unauthorized') return EXIT.UNAUTHORIZED;
  if (sync !== 'done') return EXIT.SYNC_INCOMPLETE;
  return reconciliation ? reconcileExitCode(reconciliation, failOn) : EXIT.OK;
}

/** Each exit code's name, for logs and the metrics file. */
export const EXIT_OUTCOMES: Readonly<Record<ExitCode, string>> = {
  [EXIT.OK]: 'ok',
  [EXIT.INTERNAL]: 'internal_error',
  [EXIT.USAGE]: 'usage_error',
  [EXIT.UNAUTHORIZED]: 'unauthorized',
  [EXIT.SYNC_INCOMPLETE]: 'sync_incomplete',
  [EXIT.LOCKED]: 'locked',
  [EXIT.DISCREPANCIES]: 'discrepancies',
  [EXIT.REJECTED]: 'rejected',
};

/** Exit 0 and 6 are a run that did its job (discrepancies are data, not failure). */
export function isSuccess(code: ExitCode): boolean {
  return code === EXIT.OK || code === EXIT.DISCREPANCIES;
}
