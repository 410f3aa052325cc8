import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import { MirrorError } from '../mirror/mirror-error.js';
import { refreshPlannerStatistics } from '../mirror/planner-statistics.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { type Reconciliation, recordReconciliation } from '../recon/findings-store.js';
import type { ReconSettings } from '../recon/recon-settings.js';
import { type CheckResults, runChecks } from '../recon/run-checks.js';
import type { DataStatus } from '../reports/data-status.js';
import { reportFiles } from '../reports/report-files.js';
import {
  latestTarget,
  pointLatest,
  type StagedReport,
  stageReportFolder,
} from '../reports/report-folder.js';
import {
  announcePendingReport,
  clearPendingReport,
  removeUnrecordedReports,
} from './pending-reports.js';
import { ReconcileStoppedError } from './reconcile-stopped.js';

/** Dependencies and options of {@link reconcileMirror}. */
export interface ReconcileMirrorOptions {
  readonly db: SqliteDatabase;
  readonly runId: string;
  /** The command reconciling, as the summary names it: `reconcile` or `run`. */
  readonly command: string;
  readonly settings: ReconSettings;
  readonly reportsDir: string;
  /** How complete the mirror's data is; the summary states it. */
  readonly data: DataStatus;
  readonly logger: Logger;
  readonly clock?: () => number;
  /**
   * Whether this run still holds the mirror lock, asked in the recording's transaction: a run
   * suspended past the heartbeat's staleness (Ctrl-Z, a paused VM) was judged dead and its lock
   * taken over, and its heartbeat timer may not have fired since it resumed.
   */
  readonly holdsLock?: () => boolean;
  /**
   * Aborted to stop (SIGTERM, SIGINT): a stop seen before the recording records nothing and
   * throws {@link ReconcileStoppedError}; once recording has begun, the reconciliation ends.
   */
  readonly signal?: AbortSignal;
}

/** What one reconciliation found, recorded and reported. */
export interface ReconcileResult {
  readonly runId: string;
  readonly reconciledAt: string;
  readonly data: DataStatus;
  readonly results: CheckResults;
  readonly reconciliation: Reconciliation;
  readonly settings: ReconSettings;
  /** `<reports dir>/<run id>`. */
  readonly reportDir: string;
  readonly files: readonly string[];
  /** False when `latest` already named a later run and was left alone. */
  readonly latestMoved: boolean;
  readonly durationMs: number;
}

/**
 * Run the checks, record the reconciliation and write its report folder. Recording and the
 * report go together: the folder is written in full and renamed into place inside the
 * findings store's transaction, so a report that cannot be written leaves the store as it
 * was (the findings stay `new` for the next report) and a recorded reconciliation always has
 * its report. The folder is announced in `pending_reports` before, so a crash between the
 * rename and the commit leaves a folder the next reconciliation removes: no report of a run
 * the store never recorded. `latest` moves after the commit; one that is not a symbolic link is
 * refused before anything is recorded. The caller holds the mirror lock; one it no longer holds
 * ({@link ReconcileMirrorOptions.holdsLock}) records nothing, nor does one stopped by
 * `signal` before the recording began.
 * @example const result = await reconcileMirror({ db, runId, command: 'reconcile', settings, reportsDir, data, logger });
 * @throws ReportError when the folder or `latest` cannot be written; MirrorError MIRROR_LOCKED
 *   when another run took the lock over; ReconcileStoppedError when stopped before recording.
 */
export async function reconcileMirror(options: ReconcileMirrorOptions): Promise<ReconcileResult> {
  const clock = options.clock ?? Date.now;
  const { db, runId } = options;
  const logger = options.logger.child({ module: 'reconcile', runId });
  const started = clock();
  const reconciledAt = new Date(started).toISOString();
  // A `latest` this run could not move (a folder in its place) is refused before anything is
  // recorded, not after: recorded, its findings would be `persisting` in the next report that
  // finance reads through `latest`, never shown there `new`.
  latestTarget(options.reportsDir);
  removeUnrecordedReports(db, logger);
  refreshPlannerStatistics(db);
  const results = runChecks(db, { settings: options.settings });
  if (options.signal) {
    // The checks are synchronous (one read transaction): a signal that came meanwhile, or
    // while the command started, reaches its handler only once the event loop turns. Two turns:
    // the first may run before the loop polls the signal's pipe, the second comes after it.
    await nextTurn();
    await nextTurn();
    if (options.signal.aborted) throw new ReconcileStoppedError();
  }
  let staged: StagedReport | undefined;
  let published = false;
  announcePendingReport(db, { runId, dir: join(options.reportsDir, runId), at: reconciledAt });
  let reconciliation: { recorded: Reconciliation; names: string[] };
  try {
    reconciliation = db
      .transaction(() => {
        if (options.holdsLock?.() === false)
          throw new MirrorError(
            'MIRROR_LOCKED',
            'another run took over the lock on this mirror while this one was suspended; its reconciliation was not recorded',
          );
        const recorded = recordReconciliation(db, { runId, at: reconciledAt, results });
        clearPendingReport(db, runId);
        const files = reportFiles({
          runId,
          command: options.command,
          reconciledAt,
          data: options.data,
          merchants: results.merchants,
          coverage: results.coverage,
          enabled: options.settings.enabled,
          reconciliation: recorded,
        });
        staged = stageReportFolder(options.reportsDir, runId, files);
        staged.publish();
        published = true;
        return { recorded, names: [...files.keys()] };
      })
      .immediate();
  } catch (error) {
    // Not published: no folder of this run to remove (one of its name may be another's). A
    // commit that failed after the rename keeps the row, and the next run removes the folder.
    if (!published) clearPendingReport(db, runId);
    throw error;
  }
  const reportDir = staged?.dir ?? '';
  const latestMoved = pointLatest(options.reportsDir, runId, clock());
  const durationMs = clock() - started;
  logger.info(
    {
      current: reconciliation.recorded.current.length,
      acknowledged: reconciliation.recorded.acknowledged.length,
      resolved: reconciliation.recorded.resolved.length,
      dataComplete: options.data.complete,
      reportDir,
      durationMs,
    },
    'reconciled',
  );
  return {
    runId,
    reconciledAt,
    data: options.data,
    results,
    reconciliation: reconciliation.recorded,
    settings: options.settings,
    reportDir,
    files: reconciliation.names,
    latestMoved,
    durationMs,
  };
}
