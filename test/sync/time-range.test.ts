import { describe, expect, it } from 'vitest';
import { canSplit, mergeRanges, splitRange, subtractRanges } from '../../src/sync/time-range.js';

describe('time ranges', () => {
  it('merges ranges that overlap or touch, and keeps apart ranges with a gap', () => {
    expect(
      mergeRanges([
        { start: 10, end: 20 },
        { start: 0, end: 5 },
        { start: 21, end: 30 },
        { start: 15, end: 18 },
        { start: 40, end: 50 },
      ]),
    ).toEqual([
      { start: 0, end: 5 },
      { start: 10, end: 30 },
      { start: 40, end: 50 },
    ]);
  });

  it('keeps a range of one instant, and merges it with the ranges it touches', () => {
    expect(mergeRanges([{ start: 7, end: 7 }])).toEqual([{ start: 7, end: 7 }]);
    expect(
      mergeRanges([
        { start: 0, end: 9 },
        { start: 10, end: 10 },
        { start: 11, end: 20 },
      ]),
    ).toEqual([{ start: 0, end: 20 }]);
    expect(subtractRanges({ start: 0, end: 20 }, [{ start: 10, end: 10 }])).toEqual([
      { start: 0, end: 9 },
      { start: 11, end: 20 },
    ]);
  });

  it('leaves a gap of exactly one instant at either end of the range, and none where a done range ends on its start', () => {
    // A lost last millisecond is a row never read; a kept first one is a window read twice.
    expect(subtractRanges({ start: 0, end: 20 }, [{ start: 0, end: 19 }])).toEqual([
      { start: 20, end: 20 },
    ]);
    expect(subtractRanges({ start: 0, end: 20 }, [{ start: 1, end: 20 }])).toEqual([
      { start: 0, end: 0 },
    ]);
    expect(subtractRanges({ start: 10, end: 20 }, [{ start: 0, end: 10 }])).toEqual([
      { start: 11, end: 20 },
    ]);
  });

  it('subtracts done ranges, leaving the gaps at both ends and between', () => {
    const done = [
      { start: 10, end: 20 },
      { start: 30, end: 40 },
    ];
    expect(subtractRanges({ start: 0, end: 50 }, done)).toEqual([
      { start: 0, end: 9 },
      { start: 21, end: 29 },
      { start: 41, end: 50 },
    ]);
    expect(subtractRanges({ start: 12, end: 18 }, done)).toEqual([]);
    expect(subtractRanges({ start: 15, end: 35 }, done)).toEqual([{ start: 21, end: 29 }]);
  });

  it('splits into pieces that share their boundaries and cover the range exactly', () => {
    const pieces = splitRange({ start: 0, end: 100 }, 4);
    expect(pieces).toEqual([
      { start: 0, end: 25 },
      { start: 25, end: 50 },
      { start: 50, end: 75 },
      { start: 75, end: 100 },
    ]);
  });

  it('never splits a range into more pieces than it has milliseconds, nor one instant at all', () => {
    expect(splitRange({ start: 5, end: 7 }, 10)).toEqual([
      { start: 5, end: 6 },
      { start: 6, end: 7 },
    ]);
    expect(splitRange({ start: 5, end: 5 }, 2)).toEqual([{ start: 5, end: 5 }]);
    expect(canSplit({ start: 5, end: 6 })).toBe(false);
    expect(canSplit({ start: 5, end: 7 })).toBe(true);
  });
});
