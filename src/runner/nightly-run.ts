import type { Logger } from 'pino';
import { isMirrorBusy } from '../mirror/mirror-busy.js';
import { MirrorError } from '../mirror/mirror-error.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { ReconSettings } from '../recon/recon-settings.js';
import { newRunId } from '../run-id.js';
import type { ProgressSink } from '../sync/progress-sink.js';
import { runSync, type SyncSource } from '../sync/run-sync.js';
import { stoppedMerchant } from '../sync/stopped-merchant.js';
import type { SyncSettings } from '../sync/sync-context.js';
import type { SyncExitCodes, SyncResult } from '../sync/sync-result.js';
import { dataStatusOfSync } from './data-status.js';
import { withMirrorLock } from './held-lock.js';
import { linkedStop } from './linked-stop.js';
import { type ReconcileResult, reconcileMirror } from './reconcile-mirror.js';
import { finishRun, RECONCILE_ERROR_PREFIX, reopenRun } from './run-record.js';

/** Dependencies and options of {@link runNightly}. */
export interface NightlyRunOptions {
  readonly db: SqliteDatabase;
  readonly sources: readonly SyncSource[];
  readonly syncSettings: SyncSettings;
  readonly reconSettings: ReconSettings;
  readonly reportsDir: string;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly clock?: () => number;
  readonly progress?: ProgressSink;
  readonly runId?: string;
  /** The exit code the sync records for each outcome (the CLI owns the numbers). */
  readonly syncExitCodes: SyncExitCodes;
  /** Called once the sync has ended, before the reconciliation (which may still throw). */
  readonly onSynced?: (sync: SyncResult) => void;
  /** The exit code of the whole run, recorded in its row (the CLI owns the numbers). */
  readonly exitCodeOf: (run: { sync: SyncResult; reconcile: ReconcileResult | null }) => number;
}

/** What one nightly run did. */
export interface NightlyRunResult {
  readonly runId: string;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly sync: SyncResult;
  /** Null when the reconciliation was skipped (see `reconcileSkipped`). */
  readonly reconcile: ReconcileResult | null;
  readonly reconcileSkipped: string | null;
  readonly exitCode: number;
}

/**
 * The nightly job: sync, then reconcile, under one run id, one `sync_runs` row (command `run`)
 * and one hold of the mirror lock, so no other run can write between the two steps. The
 * reconciliation follows any sync that ended on its own, an incomplete one included (the
 * reports then say the data is incomplete); it is skipped only when the sync was stopped
 * (SIGTERM/SIGINT) or the lock lost.
 * @example const run = await runNightly({ db, sources, syncSettings, reconSettings, reportsDir, logger, signal, syncExitCodes, exitCodeOf });
 * @throws MirrorError MIRROR_LOCKED when another run holds the lock; ReportError when the reports
 *   cannot be written (the run is recorded `failed`, exit code 1).
 */
export async function runNightly(options: NightlyRunOptions): Promise<NightlyRunResult> {
  const clock = options.clock ?? Date.now;
  const { db } = options;
  const runId = options.runId ?? newRunId(clock());
  const logger = options.logger.child({ module: 'run', runId });
  return withMirrorLock({ db, runId, logger, clock }, async ({ lock, lost }) => {
    const stop = linkedStop([options.signal, lost]);
    const { signal } = stop;
    try {
      const started = clock();
      const sync = await runSync({
        db,
        sources: options.sources,
        settings: options.syncSettings,
        logger: options.logger,
        signal,
        clock,
        ...(options.progress ? { progress: options.progress } : {}),
        runId,
        command: 'run',
        exitCodes: options.syncExitCodes,
        lock,
      });
      options.onSynced?.(sync);
      let reconcile: ReconcileResult | null = null;
      let reconcileSkipped: string | null = null;
      // A stop that came once the sync had ended (its outcome says whether it did) leaves the
      // reconciliation to run, as after any sync that ended on its own: skipping it here ended
      // the run 0 with no report. A lost lock does stop it: the mirror is another run's now.
      if (lost.aborted || sync.outcome === 'interrupted') {
        reconcileSkipped = 'the run was stopped before reconciling';
        logger.warn(reconcileSkipped);
      } else {
        reopenRun(db, runId);
        try {
          reconcile = await reconcileMirror({
            db,
            runId,
            command: 'run',
            settings: options.reconSettings,
            reportsDir: options.reportsDir,
            data: dataStatusOfSync(sync),
            logger: options.logger,
            clock,
            holdsLock: () => lock.heartbeat(),
          });
        } catch (error) {
          // The run's row is the new holder's to judge (it marked it crashed), not this run's.
          if (error instanceof MirrorError && error.code === 'MIRROR_LOCKED') throw error;
          finishRun(db, {
            runId,
            finishedAt: new Date(clock()).toISOString(),
            outcome: 'failed',
            exitCode: isMirrorBusy(error) ? options.syncExitCodes.busy : 1,
            summary: sync.merchants,
            error: `${RECONCILE_ERROR_PREFIX}${(error as Error).message}`,
          });
          throw error;
        }
      }
      const exitCode = options.exitCodeOf({ sync, reconcile });
      const finished = clock();
      finishRun(db, {
        runId,
        finishedAt: new Date(finished).toISOString(),
        outcome: sync.outcome === 'unauthorized' ? 'failed' : sync.outcome,
        exitCode,
        summary: sync.merchants,
        error: stoppedMerchant(sync)?.error?.message,
      });
      return {
        runId,
        startedAt: new Date(started).toISOString(),
        finishedAt: new Date(finished).toISOString(),
        durationMs: finished - started,
        sync,
        reconcile,
        reconcileSkipped,
        exitCode,
      };
    } finally {
      stop.unlink();
    }
  });
}
