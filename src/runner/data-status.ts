import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { DataStatus } from '../reports/data-status.js';
import type { MerchantSyncResult, SyncResult } from '../sync/sync-result.js';
import { RECONCILE_ERROR_PREFIX } from './run-record.js';

/** What a run's summary keeps of each merchant's sync. */
type MerchantOutcome = Pick<MerchantSyncResult, 'source' | 'outcome' | 'error'>;

/** How complete the data is after the sync of this very run. */
export function dataStatusOfSync(sync: SyncResult): DataStatus {
  const fallback: Record<SyncResult['outcome'], string | null> = {
    done: null,
    incomplete: 'sync incomplete: upstream unavailable; the mirror holds what was fetched',
    unauthorized: 'the upstream refused the key of a merchant; its data was not refreshed',
    interrupted: 'sync interrupted; the mirror holds what was fetched',
  };
  return {
    syncRunId: sync.runId,
    syncOutcome: sync.outcome,
    complete: sync.outcome === 'done',
    reason:
      sync.outcome === 'done' ? null : (merchantsNotDone(sync.merchants) ?? fallback[sync.outcome]),
  };
}

/**
 * Each merchant whose sync did not end done, by its source and why: a night on which one
 * merchant's upstream was unavailable and another's key was refused names both, each by its
 * own merchant. Null when every merchant's sync was done.
 */
function merchantsNotDone(merchants: readonly MerchantOutcome[]): string | null {
  const reasons = merchants
    .filter((m) => m.outcome !== 'done')
    .map((m) => {
      const why = m.error?.message;
      switch (m.outcome) {
        case 'unauthorized':
          if (m.error?.code === 'UPSTREAM_PROXY_REFUSED')
            return `the proxy refused its credentials on the way to the upstream of ${m.source} (407); its data was not refreshed`;
          return m.error?.code === 'UPSTREAM_OTHER_MERCHANT'
            ? `the key of ${m.source} reads another merchant than its configured merchantId; its data was not refreshed`
            : `the upstream refused the key of ${m.source}; its data was not refreshed`;
        case 'interrupted':
          return `sync of ${m.source} interrupted; the mirror holds what was fetched`;
        default:
          return `sync of ${m.source} incomplete: ${why ?? 'upstream unavailable'}; the mirror holds what was fetched`;
      }
    });
  return reasons.length === 0 ? null : reasons.join('; ');
}

interface LastRun {
  run_id: string;
  command: string;
  outcome: string;
  summary: string | null;
  error: string | null;
}

/**
 * How complete the data is for a reconciliation on its own: how the mirror's latest sync ended,
 * and each merchant whose sync did not end done. Call it holding the mirror lock: a run still
 * marked `running` then died (`crashed`). A `run` whose sync had ended before its reconciliation
 * failed or died is judged by its sync. The latest is the run recorded last (runs are recorded
 * as they start, one at a time under the lock), not the one whose `started_at` is greatest: that
 * is the host's clock, and a run started while it was ahead would pass for the latest, done,
 * after the clock was set back and the next night's sync failed.
 */
export function lastSyncStatus(db: SqliteDatabase): DataStatus {
  const last = db
    .prepare(
      'SELECT run_id, command, outcome, summary, error FROM sync_runs ORDER BY rowid DESC LIMIT 1',
    )
    .get() as LastRun | undefined;
  if (!last)
    return {
      syncRunId: null,
      syncOutcome: 'none',
      complete: false,
      reason: 'the mirror was never synced',
    };
  const summary: unknown = last.summary === null ? null : JSON.parse(last.summary);
  const merchants = Array.isArray(summary) ? (summary as MerchantOutcome[]) : [];
  const synced = syncOfRun(last, merchants);
  // The run's own error, unless it is one merchant's (named with its merchant below) or that of
  // a reconciliation, which says nothing of the data.
  const own =
    synced === undefined &&
    last.error !== null &&
    !merchants.some((m) => m.error?.message === last.error)
      ? last.error
      : null;
  // sync_runs keeps a refused key as `failed` (with its exit code); the night's summary named it
  // as the sync ended, `unauthorized`, and a reconciliation on its own names it alike.
  const refused =
    last.outcome === 'failed' &&
    own === null &&
    merchants.some((m) => m.outcome === 'unauthorized');
  const outcome =
    synced ?? (refused ? 'unauthorized' : last.outcome === 'running' ? 'crashed' : last.outcome);
  const why = [own, merchantsNotDone(merchants)].filter((text) => text !== null).join('; ');
  return {
    syncRunId: last.run_id,
    syncOutcome: outcome,
    complete: outcome === 'done',
    reason:
      outcome === 'done'
        ? null
        : `the last sync (${last.run_id}) ended ${outcome}${why ? `: ${why}` : ''}`,
  };
}

/**
 * How the sync of a `run` ended when the run went on to reconcile and failed there (its error
 * says so) or died there (its row `running` again, with the sync's summary): from the
 * merchants' outcomes its summary keeps. Undefined for any other row.
 */
function syncOfRun(last: LastRun, merchants: readonly MerchantOutcome[]): string | undefined {
  if (last.command !== 'run' || last.summary === null) return undefined;
  const failedReconciling =
    last.outcome === 'failed' && last.error?.startsWith(RECONCILE_ERROR_PREFIX) === true;
  if (!failedReconciling && last.outcome !== 'running') return undefined;
  const outcomes = new Set(merchants.map((m) => m.outcome));
  return outcomes.has('unauthorized')
    ? 'unauthorized'
    : outcomes.has('interrupted')
      ? 'interrupted'
      : outcomes.has('incomplete')
        ? 'incomplete'
        : 'done';
}
