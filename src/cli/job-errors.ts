import { MirrorError } from '../mirror/mirror-error.js';
import { ReportError } from '../reports/report-error.js';
import { ReconcileStoppedError } from '../runner/reconcile-stopped.js';
import { EXIT, ExitError } from './exit-codes.js';
import { isMirrorBusy, mirrorBusyExit } from './mirror-busy.js';
import { mirrorFailureExit } from './mirror-failure-exit.js';

/**
 * The exit a `reconcile` or `run` ends with for `error`: another holder of the mirror lock → 5,
 * another writer holding the mirror past the busy timeout → 5 (as for every command), a report
 * that cannot be written → 1 with its own message (the findings store is left as it was); a
 * reconciliation stopped before recording (SIGTERM, SIGINT) → 4, as a stopped sync; the
 * mirror's storage failing (full, damaged) → {@link mirrorFailureExit}, 4 while `mirror.syncing`;
 * an ExitError as it is. Anything else is returned unchanged (an internal error).
 */
export function jobExit(
  error: unknown,
  mirror: { readonly file: string; readonly syncing: boolean },
): unknown {
  if (error instanceof ExitError) return error;
  if (error instanceof MirrorError && error.code === 'MIRROR_LOCKED')
    return new ExitError(EXIT.LOCKED, error.message, { cause: error });
  if (isMirrorBusy(error)) return mirrorBusyExit(error);
  if (error instanceof ReconcileStoppedError)
    return new ExitError(EXIT.SYNC_INCOMPLETE, error.message, { cause: error });
  if (error instanceof ReportError)
    return new ExitError(EXIT.INTERNAL, `reports: ${error.message}`, { cause: error });
  return mirrorFailureExit(error, mirror) ?? error;
}

/** The exit code of an error {@link jobExit} has mapped. */
export function exitCodeOf(error: unknown) {
  return error instanceof ExitError ? error.exitCode : EXIT.INTERNAL;
}
