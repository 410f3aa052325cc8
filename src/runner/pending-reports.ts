import { rmSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Logger } from 'pino';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/**
 * Announce, in a committed transaction of its own, that run `runId` is about to rename its
 * report folder `dir` into place. The transaction that records the run's findings deletes the
 * row ({@link clearPendingReport}); a crash between the rename and that commit leaves the row,
 * and the next reconciliation removes the folder ({@link removeUnrecordedReports}).
 */
export function announcePendingReport(
  db: SqliteDatabase,
  run: { runId: string; dir: string; at: string },
): void {
  db.prepare(
    'INSERT OR REPLACE INTO pending_reports (run_id, dir, announced_at) VALUES (?, ?, ?)',
  ).run(run.runId, resolve(run.dir), run.at);
}

/** Inside the transaction that records run `runId`: its folder is no longer pending. */
export function clearPendingReport(db: SqliteDatabase, runId: string): void {
  db.prepare('DELETE FROM pending_reports WHERE run_id = ?').run(runId);
}

/**
 * Remove the report folders of runs that crashed after publishing them and before recording
 * their findings (a row of `pending_reports` whose run `recon_runs` lacks), so the reports show
 * no run the findings store does not know: the next report then says `new` once, as if the
 * killed run had never happened. Call it holding the mirror lock. A folder that cannot be
 * removed is logged and its row kept, to be tried again by the next run.
 * @returns the folders removed.
 */
export function removeUnrecordedReports(db: SqliteDatabase, logger: Logger): string[] {
  const pending = db
    .prepare(
      `SELECT p.run_id AS runId, p.dir FROM pending_reports p
       WHERE NOT EXISTS (SELECT 1 FROM recon_runs r WHERE r.run_id = p.run_id)`,
    )
    .all() as { runId: string; dir: string }[];
  const removed: string[] = [];
  for (const { runId, dir } of pending) {
    // Only ever the run's own folder, `<reports dir>/<run id>`.
    if (basename(dir) !== runId) continue;
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      logger.warn(
        { runId, dir, err: error },
        'cannot remove the report folder of a run that died before recording it',
      );
      continue;
    }
    clearPendingReport(db, runId);
    removed.push(dir);
    logger.warn({ runId, dir }, 'removed the report folder of a run that died before recording it');
  }
  // A row of a run that was recorded (none should be left) names a complete report: keep it.
  db.prepare('DELETE FROM pending_reports WHERE run_id IN (SELECT run_id FROM recon_runs)').run();
  return removed;
}
