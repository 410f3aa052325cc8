import { mirrorTally } from './mirror-tally.js';
import type { MerchantSyncContext } from './sync-context.js';
import { plus, type Tally } from './tally.js';
import type { TimeRange } from './time-range.js';

/**
 * History that no window of the run writes, and the mirror's tally of it, counted while the
 * windows are read (see {@link tallyAhead}).
 */
export interface SettledTally {
  readonly range: TimeRange;
  readonly tally: Promise<Tally>;
}

/** The slices {@link tallyAhead} counts, one per turn of the event loop. */
const SLICE_MS = 7 * 86_400_000;

/**
 * Start counting the mirror over `range`, history that no window of this run writes
 * ({@link settledHistory}), so the closing audit does not count it afterwards: about 0.2 s a
 * million rows, on the main thread, which is mostly waiting while pages are read. A week at a
 * time, one slice per turn of the event loop, so responses are not held up. Slices add up
 * exactly: every `createdAt` has milliseconds (the contract's Timestamp).
 */
export function tallyAhead(
  context: MerchantSyncContext,
  merchantId: string,
  range: TimeRange,
): SettledTally {
  const count = mirrorTally(context, merchantId);
  const tally = (async () => {
    let total: Tally = { rows: 0, pending: 0, completed: 0, settled: 0 };
    for (let start = range.start; start <= range.end; start += SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      context.signal.throwIfAborted();
      total = plus(total, count(start, Math.min(range.end, start + SLICE_MS - 1)));
    }
    return total;
  })();
  // Awaited by the audit; a run that stops first never asks for it.
  tally.catch(() => {});
  return { range, tally };
}

/**
 * The history between `start` and the first of `windows`, less the millisecond each query
 * widens by on either side: windows planned later (once the cards show an earlier start) end
 * before `start`, and the first window begins after it.
 */
export function settledHistory(
  start: number,
  windows: readonly { readonly range: TimeRange }[],
): TimeRange | undefined {
  const end = Math.min(...windows.map((w) => w.range.start)) - 2;
  return end >= start + 1 ? { start: start + 1, end } : undefined;
}

/** The mirror's tally over the whole `range`: the settled part as counted ahead, the rest now. */
export async function wholeTally(
  range: TimeRange,
  settled: SettledTally | undefined,
  mirrored: (start: number, end: number) => Tally,
): Promise<Tally> {
  if (!settled || settled.range.start < range.start || settled.range.end > range.end)
    return mirrored(range.start, range.end);
  let tally = await settled.tally;
  if (settled.range.start > range.start)
    tally = plus(tally, mirrored(range.start, settled.range.start - 1));
  if (settled.range.end < range.end)
    tally = plus(tally, mirrored(settled.range.end + 1, range.end));
  return tally;
}
