import type { Logger } from 'pino';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { ReconSettings } from '../recon/recon-settings.js';
import { newRunId } from '../run-id.js';
import { lastSyncStatus } from './data-status.js';
import { withMirrorLock } from './held-lock.js';
import { type ReconcileResult, reconcileMirror } from './reconcile-mirror.js';
import { ReconcileStoppedError } from './reconcile-stopped.js';

/** Dependencies and options of {@link runReconcile}. */
export interface RunReconcileOptions {
  readonly db: SqliteDatabase;
  readonly settings: ReconSettings;
  readonly reportsDir: string;
  readonly logger: Logger;
  readonly clock?: () => number;
  readonly runId?: string;
  /** Aborted on SIGTERM or SIGINT: the reconciliation stops if it has not begun recording. */
  readonly signal?: AbortSignal;
}

/**
 * `cardsync reconcile`: take the mirror lock (no sync may write while the checks read and the
 * findings are recorded), reconcile the mirror as the last sync left it, write the reports.
 * @example const result = await runReconcile({ db, settings, reportsDir, logger });
 * @throws MirrorError MIRROR_LOCKED; ReportError when the reports cannot be written;
 *   ReconcileStoppedError when `signal` stopped it before it recorded anything.
 */
export async function runReconcile(options: RunReconcileOptions): Promise<ReconcileResult> {
  const clock = options.clock ?? Date.now;
  const runId = options.runId ?? newRunId(clock());
  const { db, signal } = options;
  if (signal?.aborted) throw new ReconcileStoppedError();
  return withMirrorLock({ db, runId, logger: options.logger, clock }, ({ lock }) =>
    reconcileMirror({
      db,
      runId,
      command: 'reconcile',
      settings: options.settings,
      reportsDir: options.reportsDir,
      data: lastSyncStatus(db),
      logger: options.logger,
      clock,
      holdsLock: () => lock.heartbeat(),
      ...(signal ? { signal } : {}),
    }),
  );
}
