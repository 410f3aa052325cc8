import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { dropCardIndexWhileEmpty } from '../mirror/card-index.js';
import { keepLockFresh, releaseLock } from '../mirror/lock-heartbeat.js';
import { isMirrorBusy } from '../mirror/mirror-busy.js';
import { mirrorFailureOf } from '../mirror/mirror-failure.js';
import { acquireMirrorLock, type MirrorLock } from '../mirror/mirror-lock.js';
import { createMirrorWriters } from '../mirror/mirror-writers.js';
import { refreshPlannerStatistics } from '../mirror/planner-statistics.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { newRunId } from '../run-id.js';
import { ensureCardIndexLogged } from './card-index-build.js';
import { syncMerchant } from './merchant-sync.js';
import { type ProgressSink, SILENT_PROGRESS } from './progress-sink.js';
import { stoppedMerchant } from './stopped-merchant.js';
import type { SyncApi, SyncSettings } from './sync-context.js';
import type { MerchantSyncResult, SyncExitCodes, SyncOutcome, SyncResult } from './sync-result.js';
import { isoTime } from './time-range.js';
import { WriterThread } from './writer-thread-client.js';

/** One configured merchant and the client that reads it. */
export interface SyncSource {
  readonly source: string;
  readonly baseUrl: string;
  readonly merchantId?: string | undefined;
  readonly api: SyncApi;
}

/** Dependencies and options of {@link runSync}. */
export interface RunSyncOptions {
  readonly db: SqliteDatabase;
  readonly sources: readonly SyncSource[];
  readonly settings: SyncSettings;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly clock?: () => number;
  readonly progress?: ProgressSink;
  readonly runId?: string;
  /** The command recorded in `sync_runs` (`sync`, or `run` for the nightly job). */
  readonly command?: string;
  /** The exit code to record for each outcome (the CLI owns the numbers). */
  readonly exitCodes: SyncExitCodes;
  /**
   * The mirror's lock, already taken by the caller under `runId` (the nightly `run` holds it
   * across sync and reconcile, so no other run slips in between): not taken nor released here.
   */
  readonly lock?: MirrorLock;
}

/**
 * Make the mirror equal to the upstream for every source: take the single-writer lock, record
 * the run, sync each merchant, record how it ended, release the lock. Upstream failures end
 * in an outcome, never a throw; a mirror failure throws after recording the run (`incomplete`
 * when the mirror could not be written, as on a full disk, or another writer held it past the
 * busy timeout: the next run resumes; else `failed`).
 * @throws MirrorError MIRROR_LOCKED when another run holds the lock.
 */
export async function runSync(options: RunSyncOptions): Promise<SyncResult> {
  const clock = options.clock ?? Date.now;
  // Every request in flight listens to the signal; hundreds may be queued at once.
  const stop = new AbortController();
  setMaxListeners(0, stop.signal);
  const forward = () => stop.abort(options.signal.reason);
  if (options.signal.aborted) forward();
  else options.signal.addEventListener('abort', forward, { once: true });
  const signal = stop.signal;
  const runId = options.runId ?? newRunId(clock());
  const writers = createMirrorWriters(options.db);
  const logger = options.logger.child({ module: 'sync', runId });
  const lock = options.lock ?? acquireMirrorLock(options.db, { runId, now: clock });
  if (lock.replaced && !options.lock)
    logger.warn({ previous: lock.replaced }, 'took over the lock of a run that had died');
  const stopHeartbeat = keepLockFresh(lock, {
    logger,
    // Another run decided this one was dead and took the lock: stop writing at once.
    onLost: () => stop.abort(new Error('lock lost')),
  });
  const started = clock();
  writers.runs.start({
    runId,
    command: options.command ?? 'sync',
    startedAt: isoTime(started),
    pid: process.pid,
    host: hostname(),
  });
  const crashed = writers.runs.markCrashed(runId, isoTime(started));
  if (crashed > 0) logger.warn({ crashed }, 'earlier runs had died; this run resumes their work');
  const merchants: MerchantSyncResult[] = [];
  let cutoff: number | null = null;
  // A first sync lands its rows without the index by card, and builds it once they are in.
  if (dropCardIndexWhileEmpty(options.db))
    logger.info('first sync: the index by card is built once the rows have landed');
  const writerThread = WriterThread.start(options.db.name);
  try {
    for (const source of options.sources) {
      if (signal.aborted) break;
      const result = await syncMerchant(
        {
          api: source.api,
          writers,
          writerThread,
          runId,
          source: source.source,
          baseUrl: source.baseUrl,
          logger: logger.child({ source: source.source }),
          signal,
          settings: options.settings,
          clock,
          progress: options.progress ?? SILENT_PROGRESS,
        },
        {
          merchantId: source.merchantId,
          onCutoff: (at) => {
            if (cutoff === null) {
              cutoff = at;
              writers.runs.setCutoff(runId, isoTime(at));
            }
          },
        },
      );
      merchants.push(result);
      logger.info({ result }, 'merchant synced');
    }
    const outcome = overallOutcome(merchants, signal, options.sources.length);
    const finished = clock();
    const result: SyncResult = {
      runId,
      startedAt: isoTime(started),
      finishedAt: isoTime(finished),
      cutoff: cutoff === null ? null : isoTime(cutoff),
      outcome,
      durationMs: finished - started,
      merchants,
    };
    writers.runs.finish({
      runId,
      finishedAt: result.finishedAt,
      outcome: outcome === 'unauthorized' ? 'failed' : outcome,
      exitCode: options.exitCodes[outcome],
      summary: merchants,
      error: stoppedMerchant({ outcome, merchants })?.error?.message,
    });
    return result;
  } catch (error) {
    // A mirror that could not be written (a full disk), or that another writer held past the
    // busy timeout, left the sync incomplete: what landed is committed with its progress, and
    // the next run resumes. Anything else is a failure.
    const failure = mirrorFailureOf(error);
    const unwritable = failure?.kind === 'unwritable';
    const busy = isMirrorBusy(error);
    // The mirror's file failing (a full disk, a damaged file) is the operator's to mend, not a
    // bug: SQLite's code and message say it, without a stack.
    const said =
      failure === undefined
        ? { err: error }
        : { error: { code: failure.code, message: failure.message } };
    logger.error(said, unwritable ? 'the mirror could not be written' : 'sync failed');
    try {
      writers.runs.finish({
        runId,
        finishedAt: isoTime(clock()),
        outcome: unwritable || busy ? 'incomplete' : 'failed',
        exitCode: busy ? options.exitCodes.busy : unwritable ? options.exitCodes.incomplete : 1,
        summary: merchants,
        error: (error as Error).message,
      });
    } catch (recording) {
      // The disk may still be full: the error that stopped the run is the one to report, and
      // the next run marks this one `crashed`.
      logger.warn({ err: recording }, 'could not record how the run ended');
    }
    throw error;
  } finally {
    // Both are left to the next run (or command) when stopped by a signal. Every batch has
    // landed by now (each merchant's sync awaits its own).
    if (!signal.aborted) {
      // A first sync that failed before a merchant's own check dropped the index by card and
      // never built it; it goes first, so the statistics below cover it.
      buildCardIndex(options.db, logger);
      // Analysts query the mirror with their own tools: a mirror that is only ever synced (never
      // reconciled) gets the planner statistics that `reconcile` would give it. Cheap once they
      // exist (SQLite re-samples only what grew). Gathered while the writer thread finishes its
      // checkpoint rather than after it: 13-18 ms at 220,000 rows, saved when that checkpoint
      // outlasts the closing audit.
      refreshStatistics(options.db, logger);
    }
    await writerThread.close();
    options.signal.removeEventListener('abort', forward);
    stopHeartbeat();
    if (!options.lock) releaseLock(lock, logger);
  }
}

/** Build the index by card if the run dropped it and no merchant's sync got to build it. */
function buildCardIndex(db: SqliteDatabase, logger: Logger): void {
  try {
    ensureCardIndexLogged(db, logger);
  } catch (error) {
    logger.warn({ err: error }, 'the index by card was not built; the next command builds it');
  }
}

function refreshStatistics(db: SqliteDatabase, logger: Logger): void {
  try {
    refreshPlannerStatistics(db);
  } catch (error) {
    logger.warn({ err: error }, 'planner statistics not refreshed; the next run tries again');
  }
}

function overallOutcome(
  merchants: readonly MerchantSyncResult[],
  signal: AbortSignal,
  expected: number,
): SyncOutcome {
  // A stop asked for outranks a refused key: the run ends as stopped (nothing reconciled, exit 4),
  // instead of going on to reconcile after SIGTERM; the next run meets the refusal again.
  if (signal.aborted || merchants.some((m) => m.outcome === 'interrupted')) return 'interrupted';
  if (merchants.some((m) => m.outcome === 'unauthorized')) return 'unauthorized';
  if (merchants.length < expected || merchants.some((m) => m.outcome === 'incomplete'))
    return 'incomplete';
  return 'done';
}
