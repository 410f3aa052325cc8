import { describe, expect, it } from 'vitest';
import { planRemainder, planWindows } from '../../src/sync/window-plan.js';

const HOUR = 3_600_000;

describe('the window plan', () => {
  it('reads the whole history on a first run, with the lookback as its own window', () => {
    const plan = planWindows({ start: 0, cutoff: 100 * HOUR, lookbackMs: 72 * HOUR, done: [] });
    expect(plan).toEqual([
      { kind: 'history', range: { start: 0, end: 28 * HOUR - 1 }, markDone: true },
      { kind: 'lookback', range: { start: 28 * HOUR, end: 100 * HOUR }, markDone: true },
    ]);
  });

  it('reads only the lookback when the history before it is done', () => {
    const plan = planWindows({
      start: 0,
      cutoff: 200 * HOUR,
      lookbackMs: 72 * HOUR,
      done: [{ start: 0, end: 150 * HOUR }],
    });
    expect(plan).toEqual([
      { kind: 'lookback', range: { start: 128 * HOUR, end: 200 * HOUR }, markDone: true },
    ]);
  });

  it('resumes a crashed run exactly at the gaps its finished windows left', () => {
    const plan = planWindows({
      start: 0,
      cutoff: 100 * HOUR,
      lookbackMs: 10 * HOUR,
      done: [
        { start: 0, end: 20 * HOUR },
        { start: 50 * HOUR, end: 60 * HOUR },
      ],
    });
    expect(plan.filter((w) => w.kind === 'history').map((w) => w.range)).toEqual([
      { start: 20 * HOUR + 1, end: 50 * HOUR - 1 },
      { start: 60 * HOUR + 1, end: 90 * HOUR - 1 },
    ]);
  });

  it('starts at the lookback when the history is shorter than it, and plans nothing before start', () => {
    expect(planWindows({ start: 90, cutoff: 100, lookbackMs: 1000, done: [] })).toEqual([
      { kind: 'lookback', range: { start: 90, end: 100 }, markDone: true },
    ]);
    expect(planWindows({ start: 200, cutoff: 100, lookbackMs: 10, done: [] })).toEqual([]);
    // A history that starts on the cutoff is one instant long, and read.
    expect(planWindows({ start: 100, cutoff: 100, lookbackMs: 10, done: [] })).toEqual([
      { kind: 'lookback', range: { start: 100, end: 100 }, markDone: true },
    ]);
  });

  it('plans what an earlier start adds to windows under way, history and lookback alike', () => {
    const done = [{ start: 10 * HOUR, end: 12 * HOUR }];
    const base = { cutoff: 100 * HOUR, lookbackMs: 72 * HOUR, done };
    const underWay = planWindows({ ...base, start: 20 * HOUR });
    expect(planRemainder({ ...base, start: 5 * HOUR }, underWay)).toEqual([
      { kind: 'history', range: { start: 5 * HOUR, end: 10 * HOUR - 1 }, markDone: true },
      { kind: 'history', range: { start: 12 * HOUR + 1, end: 20 * HOUR - 1 }, markDone: true },
    ]);
    // The first cards were all inside the lookback: the rest of it and the history before.
    const recent = planWindows({ ...base, done: [], start: 90 * HOUR });
    expect(planRemainder({ ...base, done: [], start: 0 }, recent)).toEqual([
      { kind: 'history', range: { start: 0, end: 28 * HOUR - 1 }, markDone: true },
      { kind: 'lookback', range: { start: 28 * HOUR, end: 90 * HOUR - 1 }, markDone: true },
    ]);
    // Nothing earlier: nothing more.
    expect(planRemainder({ ...base, start: 20 * HOUR }, underWay)).toEqual([]);
  });
});
