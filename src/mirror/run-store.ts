import type { SqliteDatabase } from './sqlite-database.js';

/** The final state of a run. */
export type RunOutcome = 'done' | 'incomplete' | 'interrupted' | 'failed';

/** A unit of work as the run record keeps it. */
export interface WindowRecord {
  readonly runId: string;
  readonly merchantId: string;
  readonly kind: string;
  readonly startAt: string | null;
  readonly endAt: string | null;
  readonly filter: string | null;
  readonly expected: number | null;
  readonly fetched: number;
  readonly upserted: number;
  readonly attempts: number;
  readonly durationMs: number;
  readonly outcome: 'done' | 'failed' | 'skipped';
  readonly finishedAt: string;
}

/** `sync_runs` and `sync_windows`: what each run did. */
export class RunStore {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** Record the start of a run (outcome `running`). */
  start(run: {
    runId: string;
    command: string;
    startedAt: string;
    pid: number;
    host: string;
  }): void {
    this.#db
      .prepare(
        `INSERT INTO sync_runs (run_id, command, started_at, outcome, pid, host)
         VALUES (?, ?, ?, 'running', ?, ?)`,
      )
      .run(run.runId, run.command, run.startedAt, run.pid, run.host);
  }

  /** Runs still `running` that are not `exceptRunId` died without finishing: mark them `crashed`. */
  markCrashed(exceptRunId: string, at: string): number {
    return this.#db
      .prepare(
        `UPDATE sync_runs SET outcome = 'crashed', finished_at = ?
         WHERE outcome = 'running' AND run_id <> ?`,
      )
      .run(at, exceptRunId).changes;
  }

  /** Set the run's cutoff once it is known. */
  setCutoff(runId: string, cutoff: string): void {
    this.#db.prepare('UPDATE sync_runs SET cutoff = ? WHERE run_id = ?').run(cutoff, runId);
  }

  /** Record how the run ended. */
  finish(run: {
    runId: string;
    finishedAt: string;
    outcome: RunOutcome;
    exitCode: number;
    summary: unknown;
    error?: string | undefined;
  }): void {
    this.#db
      .prepare(
        `UPDATE sync_runs SET finished_at = ?, outcome = ?, exit_code = ?, summary = ?, error = ?
         WHERE run_id = ?`,
      )
      .run(
        run.finishedAt,
        run.outcome,
        run.exitCode,
        JSON.stringify(run.summary),
        run.error ?? null,
        run.runId,
      );
  }

  /** Record one unit of work; call inside the unit's own transaction when it wrote rows. */
  addWindow(window: WindowRecord): void {
    this.#db
      .prepare(
        `INSERT INTO sync_windows (run_id, merchant_id, kind, start_at, end_at, filter, expected,
           fetched, upserted, attempts, duration_ms, outcome, finished_at)
         VALUES (@runId, @merchantId, @kind, @startAt, @endAt, @filter, @expected, @fetched,
           @upserted, @attempts, @durationMs, @outcome, @finishedAt)`,
      )
      .run(window);
  }
}
