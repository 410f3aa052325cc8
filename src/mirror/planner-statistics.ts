import type { SqliteDatabase } from './sqlite-database.js';

/** Rows SQLite samples per index when it gathers statistics (fast even at millions of rows). */
const ANALYSIS_LIMIT = 1_000;

/**
 * Let SQLite refresh the statistics its query planner uses, where they are missing or stale
 * (`PRAGMA optimize` with the 0x10002 mask, sampling at most {@link ANALYSIS_LIMIT} rows an
 * index). Without statistics, a fresh mirror gets poor plans for the reconciliation's joins
 * (measured: linking the journal to its FEE records took 2.1 s on a demo mirror, 34 ms after).
 * Writes `sqlite_stat1`, so call it while holding the mirror lock.
 */
export function refreshPlannerStatistics(db: SqliteDatabase): void {
  db.pragma(`analysis_limit = ${ANALYSIS_LIMIT}`);
  db.pragma('optimize = 0x10002');
}
