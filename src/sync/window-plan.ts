import { mergeRanges, subtractRanges, type TimeRange } from './time-range.js';
import type { WindowKind } from './window-commit.js';

/** A window the planner hands to the pool. */
export interface PlannedWindow {
  readonly kind: WindowKind;
  readonly range: TimeRange;
  readonly markDone: boolean;
}

/** What the planner knows at the start of a merchant's transaction sync. */
export interface WindowPlanInput {
  /** Where history starts: `--since`, else the earliest card, else the cutoff. */
  readonly start: number;
  /** The end of the synced range, fixed at run start (upstream now minus the safety lag). */
  readonly cutoff: number;
  /** How far before the cutoff to read again for late postings. */
  readonly lookbackMs: number;
  /** Ranges already mirrored by earlier runs. */
  readonly done: readonly TimeRange[];
}

/**
 * The history windows still to read (the gaps in the done ranges before the lookback) and the
 * lookback window, which is read every run because late postings land there. Pure: the same
 * input gives the same plan, which is what makes a crashed run resume exactly.
 */
export function planWindows(input: WindowPlanInput): PlannedWindow[] {
  const { start, cutoff } = input;
  if (cutoff < start) return [];
  const lookbackStart = Math.max(start, cutoff - input.lookbackMs);
  const plan: PlannedWindow[] = [];
  if (lookbackStart > start) {
    const history = subtractRanges({ start, end: lookbackStart - 1 }, mergeRanges(input.done));
    for (const range of history) plan.push({ kind: 'history', range, markDone: true });
  }
  plan.push({ kind: 'lookback', range: { start: lookbackStart, end: cutoff }, markDone: true });
  return plan;
}

/**
 * The windows of `planWindows(input)` that `planned` does not already cover: what is left to
 * read once the history turns out to start earlier than the windows under way assumed.
 */
export function planRemainder(
  input: WindowPlanInput,
  planned: readonly PlannedWindow[],
): PlannedWindow[] {
  const covered = mergeRanges(planned.map((window) => window.range));
  return planWindows(input).flatMap((window) =>
    subtractRanges(window.range, covered).map((range) => ({ ...window, range })),
  );
}
