import { describe, expect, it } from 'vitest';
import { type MerchantSyncContext, readTime } from '../../src/sync/sync-context.js';

/** A context whose upstream clock estimate answers `estimates` in turn. */
function scripted(
  ...estimates: (number | undefined)[]
): Pick<MerchantSyncContext, 'api' | 'clock'> {
  let call = 0;
  return {
    api: { upstreamNow: () => estimates[call++] } as MerchantSyncContext['api'],
    clock: () => 0,
  };
}

describe('readTime', () => {
  it("never goes back by the little that the upstream clock's estimate settles by, so the tail's end is not before a card read", () => {
    // The middle of the Date headers' bounds, 400 ms lower once an answer crossed a second.
    const context = scripted(10_000, 10_050, 9_700, 9_990, 10_200);
    expect([1, 2, 3, 4, 5].map(() => readTime(context))).toEqual([
      10_000, 10_050, 10_050, 10_050, 10_200,
    ]);
  });

  it('follows a clock set back by more than the estimate can settle by', () => {
    const context = scripted(10_000_000, 10_000_000 - 3_600_000);
    expect(readTime(context)).toBe(10_000_000);
    expect(readTime(context)).toBe(10_000_000 - 3_600_000);
  });

  it('takes the local clock before any answer', () => {
    expect(readTime({ api: scripted(undefined).api, clock: () => 42 })).toBe(42);
  });
});
