import { describe, expect, it } from 'vitest';
import { settledHistory } from '../../src/sync/settled-history.js';

const window = (start: number, end: number) => ({ range: { start, end } });

describe('settledHistory', () => {
  it('is the history strictly inside what the windows and their 1 ms widening reach', () => {
    // Windows read [start - 1, end + 1]: the first, from 1,000, reaches 999; a window planned
    // later ends before 100 and reaches 100.
    expect(settledHistory(100, [window(5_000, 6_000), window(1_000, 2_000)])).toEqual({
      start: 101,
      end: 998,
    });
  });

  it('is nothing when the first window starts at (or right after) the history', () => {
    expect(settledHistory(100, [window(100, 2_000)])).toBeUndefined();
    // Reads from 101 on; later windows reach 100.
    expect(settledHistory(100, [window(102, 2_000)])).toBeUndefined();
    // Reads from 102 on: 101 alone is settled.
    expect(settledHistory(100, [window(103, 2_000)])).toEqual({ start: 101, end: 101 });
  });
});
