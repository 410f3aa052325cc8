import { CardIssuingClient } from '../src/api/index.js';
import type { TimeRange } from '../src/sync/time-range.js';
import { fetchWindow, type WindowQuery } from '../src/sync/window-fetcher.js';
import { planWindows } from '../src/sync/window-plan.js';
import { runWorkPool } from '../src/sync/work-pool.js';
import { ownCpuSeconds } from './cpu-time.js';

/** How a fetch-only pass reads, matching the sync's settings. */
export interface FetchOnlySettings {
  readonly concurrency: number;
  readonly maxPagesPerWindow: number;
  readonly lookbackMs: number;
  readonly safetyLagMs: number;
  /**
   * Read what a nightly run reads once the history is mirrored: the card list, the lookback and
   * the tail, not the history before the lookback.
   */
  readonly historyDone?: boolean;
}

/** What a fetch-only pass read. */
export interface FetchOnlyResult {
  readonly seconds: number;
  /** CPU seconds of this process meanwhile (the client's requests, TLS, parsing, validation). */
  readonly cpuSeconds: number;
  /** Of `seconds`, the card list (read whole every run: it has no time filter). */
  readonly cardSeconds: number;
  readonly cards: number;
  readonly transactions: number;
  readonly windows: number;
  readonly splits: number;
  readonly requests: number;
}

/** The merchant to read and how to trust its server. */
export interface FetchOnlyTarget {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly ca: string;
}

/**
 * The network-and-parse limit of a sync: every page the sync would read on a first run (the
 * card list, then every planned window through the engine's own pool and fetcher, splits
 * re-queued, then the tail window), each validated by the real client, and thrown away. No
 * database is touched and no process starts, so the time is what the upstream and the client
 * cost alone. With `historyDone`, the pages of a nightly run instead.
 */
export async function fetchOnly(
  target: FetchOnlyTarget,
  settings: FetchOnlySettings,
): Promise<FetchOnlyResult> {
  const api = new CardIssuingClient({ ...target, concurrency: settings.concurrency });
  try {
    // Warm the connection pool and the upstream's list index, as neither is part of the limit.
    await api.listTransactions({ page: 1, limit: 1 });
    const before = api.stats().requests;
    const cpuBefore = ownCpuSeconds();
    const started = performance.now();
    const first = await api.listCards({ page: 1, limit: 100 });
    const cutoff = (api.upstreamNow() ?? Date.now()) - settings.safetyLagMs;
    const { total, limit } = first.pagination;
    let earliest = Number.POSITIVE_INFINITY;
    let cards = 0;
    const land = (records: readonly { createdAt: string }[]) => {
      for (const card of records) earliest = Math.min(earliest, Date.parse(card.createdAt));
      cards += records.length;
    };
    land(first.records);
    await Promise.all(
      Array.from({ length: Math.max(0, Math.ceil(total / limit) - 1) }, (_, i) =>
        api.listCards({ page: i + 2, limit }).then((page) => land(page.records)),
      ),
    );
    const cardSeconds = (performance.now() - started) / 1000;
    const start = Number.isFinite(earliest) ? earliest : cutoff - settings.lookbackMs;
    const lookbackStart = cutoff - settings.lookbackMs;
    const plan: TimeRange[] = planWindows({
      start,
      cutoff,
      lookbackMs: settings.lookbackMs,
      done: settings.historyDone && start < lookbackStart ? [{ start, end: lookbackStart }] : [],
    }).map((w) => w.range);
    let transactions = 0;
    let windows = 0;
    let splits = 0;
    const readAll = (ranges: readonly TimeRange[]) =>
      runWorkPool<WindowQuery>(
        ranges.map((range) => ({ range })),
        async (window) => {
          const result = await fetchWindow(api, window, { maxPages: settings.maxPagesPerWindow });
          if (result.kind === 'split') {
            splits += 1;
            return result.parts.map((range) => ({ range, density: result.density }));
          }
          windows += 1;
          transactions += result.rows.size + result.rejected.length;
          return [];
        },
        { concurrency: settings.concurrency },
      );
    await readAll(plan);
    const tailEnd = api.upstreamNow() ?? Date.now();
    await readAll([{ start: cutoff, end: tailEnd }]);
    const seconds = (performance.now() - started) / 1000;
    return {
      seconds,
      cpuSeconds: ownCpuSeconds() - cpuBefore,
      cardSeconds,
      cards,
      transactions,
      windows,
      splits,
      requests: api.stats().requests - before,
    };
  } finally {
    await api.close();
  }
}
