import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { DataStatus } from '../reports/data-status.js';
import type { MerchantSyncResult, SyncResult } from '../sync/sync-result.js';
import { RECONCILE_ERROR_PREFIX } from './run-record.js';

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
  command: string;
  outcome: string;
  summary: string | null;
  error: string | null;
}

/**
 * How complete the data is for a reconciliation on its own: how the mirror's latest sync ended.
 * Call it holding the mirror lock: a run still marked `running` then died (`crashed`). A `run`
 * whose sync had ended before its reconciliation failed or died is judged by its sync.
 */
export function lastSyncStatus(db: SqliteDatabase): DataStatus {
  const last = db
    .prepare(
      'SELECT run_id, command, outcome, summary, error FROM sync_runs ORDER BY started_at DESC, rowid DESC LIMIT 1',
    )
    .get() as LastRun | undefined;
  if (!last)
    return {
      syncRunId: null,
      syncOutcome: 'none',
      complete: false,
      reason: 'the mirror was never synced',
    };
  const synced = syncOfRun(last);
  const outcome = synced?.outcome ?? (last.outcome === 'running' ? 'crashed' : last.outcome);
  const error = synced ? synced.error : last.error;
  return {
    syncRunId: last.run_id,
    syncOutcome: outcome,
    complete: outcome === 'done',
    reason:
      outcome === 'done'
        ? null
        : `the last sync (${last.run_id}) ended ${outcome}${error ? `: ${error}` : ''}`,
  };
}

/**
 * How the sync of a `run` ended when the run went on to reconcile and failed there (its error
 * says so) or died there (its row `running` again, with the sync's summary): from the
 * merchants' outcomes its summary keeps. Undefined for any other row.
 */
function syncOfRun(last: LastRun): { outcome: string; error: string | null } | undefined {
  if (last.command !== 'run' || last.summary === null) return undefined;
  const failedReconciling =
    last.outcome === 'failed' && last.error?.startsWith(RECONCILE_ERROR_PREFIX) === true;
  if (!failedReconciling && last.outcome !== 'running') return undefined;
  const merchants = JSON.parse(last.summary) as Pick<MerchantSyncResult, 'outcome' | 'error'>[];
  const outcomes = new Set(merchants.map((m) => m.outcome));
  const outcome = outcomes.has('unauthorized')
    ? 'failed'
    : outcomes.has('interrupted')
      ? 'interrupted'
      : outcomes.has('incomplete')
        ? 'incomplete'
        : 'done';
  return { outcome, error: merchants.find((m) => m.error)?.error?.message ?? null };
}
