import type { Transaction } from '../contract/index.js';
import { addLandedTo } from './commit-batcher.js';
import { LastReads } from './last-reads.js';
import { quarantineEntries } from './quarantine-entries.js';
import type { SplitDensity } from './split-density.js';
import { type MerchantSyncContext, readTime } from './sync-context.js';
import type { TransactionCounts } from './sync-result.js';
import type { TimeRange } from './time-range.js';
import { BATCH_ROWS, windowBatcher } from './window-batcher.js';
import { type WindowCommit, type WindowKind, windowParts } from './window-commit.js';
import {
  fetchWindow,
  ownTransactionId,
  type WindowFilter,
  type WindowQuery,
} from './window-fetcher.js';
import { runWorkPool } from './work-pool.js';

/** A window in the pool. */
export interface WindowJob {
  readonly kind: WindowKind;
  readonly range: TimeRange;
  readonly markDone: boolean;
  readonly filter?: WindowFilter;
  /** Shared with the other parts of the split it came from. */
  readonly density?: SplitDensity;
}

/** What a batch of windows brought back, beyond the counts. */
export interface WindowBatchResult {
  /**
   * Every transaction id read, when asked for (the count audit needs them to name vanished
   * rows): valid rows and malformed records that carry their own id alike.
   */
  readonly seen: Set<string> | null;
  /**
   * Whether every window was read and its distinct ids matched its count; if not, `seen` may
   * lack rows.
   */
  readonly verified: boolean;
}

/**
 * Read `jobs` through the pool: each window fetched (split when too big or unstable) and
 * committed on its own, so windows finish in any order and a stop keeps what finished.
 * Counts accumulate into `counts`.
 */
export async function syncWindows(
  context: MerchantSyncContext,
  merchantId: string,
  jobs: readonly WindowJob[],
  counts: TransactionCounts,
  options: {
    collectIds?: boolean;
    /** Windows known only later (once the card snapshot is in), read as they come. */
    later?: Promise<readonly WindowJob[]>;
    /** Told of the first failure at once, before the windows under way finish. */
    onFailure?: (error: unknown) => void;
    /** Told once every window is read, while the last ones may still be landing. */
    onRead?: () => void;
  } = {},
): Promise<WindowBatchResult> {
  const seen = options.collectIds ? new Set<string>() : null;
  let verified = true;
  const log = context.logger;
  // These windows may share rows and finish in any order: each row goes to the writer
  // thread as read last when it is sent (the thread lands what it is sent in order), also when
  // a large window's parts go ahead of windows waiting in the batcher.
  const lastReads = new LastReads();
  const writer = {
    commit: (runId: string, windows: readonly WindowCommit[]) =>
      context.writerThread.commit(
        runId,
        windows.map((window) => ({
          ...window,
          rows: window.rows.map((row) => lastReads.sent(row)),
        })),
      ),
  };
  const batcher = windowBatcher(writer, { runId: context.runId, counts });
  const landed = addLandedTo(counts);
  try {
    await runWorkPool<WindowJob | Promise<readonly WindowJob[]>>(
      options.later ? [options.later, ...jobs] : jobs,
      async (job) => {
        // The later windows wait in a slot of their own, so the others go on meanwhile.
        if (job instanceof Promise) return await job;
        const startedAt = context.clock();
        const query: WindowQuery = {
          range: job.range,
          ...(job.filter ? { filter: job.filter } : {}),
          ...(job.density ? { density: job.density } : {}),
        };
        const part = {
          merchantId,
          kind: job.kind,
          range: job.range,
          filter: job.filter,
          quarantined: [],
          startedAt,
        };
        // What the parts landed ahead of the window's last one upserted: its record counts them.
        let upsertedAhead = 0;
        // One part at a time, each awaited: the writer thread never holds more than a batch.
        const commitAhead = async (pieces: readonly WindowCommit[]) => {
          for (const piece of pieces) {
            const written = await writer.commit(context.runId, [piece]);
            landed(written);
            for (const w of written) upsertedAhead += w.inserted + w.updated;
          }
        };
        const landAhead = (rows: readonly Transaction[]) =>
          commitAhead(
            windowParts(
              {
                ...part,
                rows,
                expected: null,
                fetched: rows.length,
                attempts: 1,
                finishedAt: context.clock(),
                readAt: readTime(context),
                markDone: false,
                ahead: true,
              },
              BATCH_ROWS,
            ),
          );
        const result = await fetchWindow(context.api, query, {
          maxPages: context.settings.maxPagesPerWindow,
          signal: context.signal,
          landAhead,
          arrived: (rows) => lastReads.note(job.range, job.kind === 'audit', rows),
        });
        if (result.kind === 'split') {
          counts.splits += 1;
          log.debug(
            {
              kind: job.kind,
              start: job.range.start,
              end: job.range.end,
              expected: result.expected,
              parts: result.parts.length,
            },
            'window split',
          );
          return result.parts.map((range) => ({ ...job, range, density: result.density }));
        }
        context.progress.expect(result.expected);
        const fetched = result.rows.size + result.landedAhead.size + result.rejected.length;
        const parts = windowParts(
          {
            ...part,
            rows: [...result.rows.values()],
            quarantined: quarantineEntries('transactions', result.rejected),
            expected: result.expected,
            fetched,
            attempts: result.attempts,
            finishedAt: context.clock(),
            readAt: readTime(context),
            markDone: job.markDone && result.verified,
          },
          BATCH_ROWS,
        );
        await commitAhead(parts.slice(0, -1));
        const last = parts.at(-1) as WindowCommit;
        await batcher.add(
          upsertedAhead === 0 ? last : { ...last, upsertedAhead },
          last.rows.length + last.quarantined.length,
        );
        if (seen) {
          for (const id of result.rows.keys()) seen.add(id);
          for (const id of result.landedAhead) seen.add(id);
          for (const error of result.rejected) {
            const own = ownTransactionId(error);
            if (own !== undefined) seen.add(own);
          }
        }
        counts.windows += 1;
        counts.fetched += fetched;
        if (!result.verified) {
          verified = false;
          counts.unverified += 1;
          // One line per window only at debug: at 1M rows under drift they would be thousands.
          // The merchant's sync warns once with their number (merchant-sync.ts).
          log.debug(
            {
              kind: job.kind,
              start: job.range.start,
              end: job.range.end,
              expected: result.expected,
              fetched: result.rows.size + result.landedAhead.size,
            },
            'window count never matched: drift on a range that cannot be cut finer',
          );
        }
        context.progress.advance(fetched);
        context.progress.windowDone();
        return [];
      },
      {
        concurrency: context.settings.concurrency,
        signal: context.signal,
        ...(options.onFailure ? { onFailure: options.onFailure } : {}),
      },
    );
    options.onRead?.();
  } finally {
    // Finished windows land even when the pool stopped on an error or a signal.
    await batcher.flush();
  }
  // A stop leaves the windows not yet started unread without an error (the pool just starts no
  // more): `seen` then lacks their rows, and the audit would list every one of them as gone.
  return { seen, verified: verified && !context.signal.aborted };
}
