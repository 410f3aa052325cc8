import { type RunOutcome, RunStore } from '../mirror/run-store.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** How the error of a `run` whose sync had ended but whose reconciliation failed begins. */
export const RECONCILE_ERROR_PREFIX = 'reconcile: ';

/**
 * Mark a `run` whose sync step has just been recorded as still `running`: the sync writes its
 * end, but the run goes on to reconcile, and a crash there must leave a row the next run marks
 * `crashed` rather than one that looks finished.
 */
export function reopenRun(db: SqliteDatabase, runId: string): void {
  db.prepare(
    `UPDATE sync_runs SET outcome = 'running', finished_at = NULL, exit_code = NULL
     WHERE run_id = ?`,
  ).run(runId);
}

/** Record how the whole run ended (its sync's summary is kept as the row's summary). */
export function finishRun(
  db: SqliteDatabase,
  run: {
    runId: string;
    finishedAt: string;
    outcome: RunOutcome;
    exitCode: number;
    summary: unknown;
    error?: string | undefined;
  },
): void {
  new RunStore(db).finish(run);
}
