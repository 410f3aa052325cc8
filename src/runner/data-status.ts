import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { DataStatus } from '../reports/data-status.js';
import type { SyncResult } from '../sync/sync-result.js';

/** How complete the data is after the sync of this very run. */
export function dataStatusOfSync(sync: SyncResult): DataStatus {
  const stopped = sync.merchants.find((m) => m.error);
  const reason: Record<SyncResult['outcome'], string | null> = {
    done: null,
    incomplete: `sync incomplete: ${stopped?.error?.message ?? 'upstream unavailable'}; the mirror holds what was fetched`,
    unauthorized: `the upstream refused the key of ${stopped?.source ?? 'a merchant'}; its data was not refreshed`,
    interrupted: 'sync interrupted; the mirror holds what was fetched',
  };
  return {
    syncRunId: sync.runId,
    syncOutcome: sync.outcome,
    complete: sync.outcome === 'done',
    reason: reason[sync.outcome],
  };
}

interface LastRun {
  run_id: string;
  outcome: string;
  error: string | null;
}

/**
 * How complete the data is for a reconciliation on its own: how the mirror's latest sync ended.
 * Call it holding the mirror lock: a run still marked `running` then died (`crashed`).
 */
export function lastSyncStatus(db: SqliteDatabase): DataStatus {
  const last = db
    .prepare(
      'SELECT run_id, outcome, error FROM sync_runs ORDER BY started_at DESC, rowid DESC LIMIT 1',
    )
    .get() as LastRun | undefined;
  if (!last)
    return {
      syncRunId: null,
      syncOutcome: 'none',
      complete: false,
      reason: 'the mirror was never synced',
    };
  const outcome = last.outcome === 'running' ? 'crashed' : last.outcome;
  return {
    syncRunId: last.run_id,
    syncOutcome: outcome,
    complete: outcome === 'done',
    reason:
      outcome === 'done'
        ? null
        : `the last sync (${last.run_id}) ended ${outcome}${last.error ? `: ${last.error}` : ''}`,
  };
}
