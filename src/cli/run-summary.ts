import type { MerchantSource } from '../config/index.js';
import type { Reconciliation } from '../recon/findings-store.js';
import type { NightlyRunResult } from '../runner/nightly-run.js';
import { stoppedMerchant } from '../sync/stopped-merchant.js';
import { EXIT } from './exit-codes.js';
import { type FailOn, failingCount } from './job-exit.js';
import { formatReconcileSummary, reconcileJson } from './reconcile-summary.js';
import { refusedKeyMessage } from './refused-key.js';
import { formatSyncSummary } from './sync-summary.js';

/** The machine summary of a nightly run (`cardsync run --json`). */
export function runJson(result: NightlyRunResult) {
  return {
    runId: result.runId,
    startedAt: result.startedAt,
    finishedAt: result.finishedAt,
    durationMs: result.durationMs,
    exitCode: result.exitCode,
    sync: result.sync,
    reconcile: result.reconcile ? reconcileJson(result.reconcile) : null,
    reconcileSkipped: result.reconcileSkipped,
  };
}

/** The human summary of a nightly run: the sync's lines, then the reconciliation's. */
export function formatRunSummary(result: NightlyRunResult, mirrorFile: string): string {
  const reconcile = result.reconcile
    ? formatReconcileSummary(result.reconcile)
    : `reconcile skipped: ${result.reconcileSkipped}\n`;
  return `${formatSyncSummary(result.sync, mirrorFile)}${reconcile}`;
}

/** The one line a run that did not end 0 leaves on stderr; `merchants` are the configured ones. */
export function runExitMessage(
  result: NightlyRunResult,
  failOn: FailOn | undefined,
  merchants: readonly MerchantSource[],
): string {
  // The merchant whose failure the exit code is: on a night with several, the first with an
  // error may be another's (an upstream unavailable), and its key is not the one to renew.
  const stopped = stoppedMerchant(result.sync);
  const reconciled = result.reconcile
    ? 'the reconciliation ran on what the mirror holds, and its reports say the data is incomplete'
    : 'not reconciled';
  switch (result.exitCode) {
    case EXIT.UNAUTHORIZED:
      return `${refusedKeyMessage(
        merchants.find((m) => m.name === stopped?.source),
        stopped?.error,
      )}; ${reconciled}`;
    case EXIT.SYNC_INCOMPLETE:
      return result.sync.outcome === 'interrupted'
        ? `run interrupted; finished windows are committed and the next run resumes; ${reconciled}`
        : `sync incomplete: ${stopped?.error?.message ?? 'upstream unavailable'}; what was fetched is committed and the next run resumes; ${reconciled}`;
    case EXIT.DISCREPANCIES:
      return discrepanciesMessage(result.reconcile?.reconciliation ?? null, failOn);
    default:
      return `run ended with exit code ${result.exitCode}`;
  }
}

/** The line of exit 6, counting the findings at or above `failOn` only (not the info ones). */
export function discrepanciesMessage(
  reconciliation: Reconciliation | null,
  failOn: FailOn | undefined,
): string {
  const failing = reconciliation ? failingCount(reconciliation, failOn) : 0;
  return `discrepancies at or above ${failOn} (--fail-on ${failOn}): ${failing} unacknowledged findings in the report`;
}
