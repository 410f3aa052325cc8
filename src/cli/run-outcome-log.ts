import type { Logger } from 'pino';
import type { ReconcileResult } from '../runner/reconcile-mirror.js';
import type { ResourceCounts, SyncResult } from '../sync/sync-result.js';
import { errorCodeOf } from './error-json.js';
import { EXIT, type ExitCode, ExitError } from './exit-codes.js';
import { EXIT_OUTCOMES, isSuccess } from './job-exit.js';

/** How one `run`, `sync` or `reconcile` ended, as far as it got. */
export interface RunOutcome {
  readonly command: 'run' | 'sync' | 'reconcile';
  readonly runId: string;
  readonly exitCode: ExitCode;
  /** From the command's start, configuration included. */
  readonly durationMs: number;
  readonly sync?: SyncResult | null;
  readonly reconcile?: ReconcileResult | null;
  readonly reconcileSkipped?: string | null;
  /** What ended the command other than 0: the error whose message is stderr's plain line. */
  readonly error?: unknown;
}

/**
 * Log how one command ended, as its last pino line (`run finished`): the exit code and its name,
 * the durations, the rows synced and the findings, and for a failure its `error` (the plain line
 * stderr gets, and its code), so the log alone says how every run ended. Info for exit 0 and 6, error for 1 (a
 * bug) and 3 (a key to renew), warn otherwise.
 */
export function logRunOutcome(logger: Logger, run: RunOutcome): void {
  const { sync, reconcile, exitCode } = run;
  const current = reconcile?.reconciliation.current ?? [];
  const fields = {
    runId: run.runId,
    command: run.command,
    exitCode,
    outcome: EXIT_OUTCOMES[exitCode],
    durationMs: run.durationMs,
    sync: sync?.outcome ?? null,
    syncDurationMs: sync?.durationMs ?? null,
    rows: sync ? syncedRows(sync) : null,
    findings: reconcile
      ? {
          current: current.length,
          new: current.filter((f) => f.state === 'new').length,
          acknowledged: reconcile.reconciliation.acknowledged.length,
          resolved: reconcile.reconciliation.resolved.length,
        }
      : null,
    dataComplete: reconcile?.data.complete ?? null,
    reportDir: reconcile?.reportDir ?? null,
    reconcileDurationMs: reconcile?.durationMs ?? null,
    reconcileSkipped: run.reconcileSkipped ?? null,
    ...(run.error === undefined || run.error === null ? {} : errorFields(run.error)),
  };
  if (isSuccess(exitCode)) logger.info(fields, 'run finished');
  else if (exitCode === EXIT.INTERNAL || exitCode === EXIT.UNAUTHORIZED)
    logger.error(fields, 'run finished');
  else logger.warn(fields, 'run finished');
}

/**
 * `error` as `--json` gives it (`{code, message}`, the message being the line stderr gets without
 * its `cardsync: ` prefix), plus the stack of an internal error (a bug, to report). Not pino's
 * `err` for the others: it appends each cause's message to the error's own (an ExitError repeats
 * its cause's) and buries the code in a stack trace.
 */
function errorFields(error: unknown) {
  if (error instanceof ExitError)
    return { error: { code: errorCodeOf(error), message: error.message } };
  const message = `internal error: ${error instanceof Error ? error.message : String(error)}`;
  return { error: { code: errorCodeOf(error), message }, err: error };
}

/** Rows read, new, changed and quarantined per resource, over every merchant. */
function syncedRows(sync: SyncResult) {
  const total = (pick: (m: SyncResult['merchants'][number]) => ResourceCounts) => ({
    read: sum(sync, (m) => pick(m).fetched),
    new: sum(sync, (m) => pick(m).inserted),
    changed: sum(sync, (m) => pick(m).updated),
    quarantined: sum(sync, (m) => pick(m).quarantined),
  });
  return {
    offerings: total((m) => m.offerings),
    cards: total((m) => m.cards),
    transactions: total((m) => m.transactions),
  };
}

function sum(sync: SyncResult, count: (m: SyncResult['merchants'][number]) => number): number {
  return sync.merchants.reduce((n, m) => n + count(m), 0);
}
