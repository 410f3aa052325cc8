import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import { startHeapCeiling } from '../../src/cli/heap-ceiling.js';

const MIB = 1024 * 1024;

describe('startHeapCeiling', () => {
  it('collects once the heap passes its mark, then waits for the headroom to fill again', async () => {
    // The heap as the ceiling sees it: what a collection leaves is what survives.
    let heap = 10 * MIB;
    let live = 10 * MIB;
    const ceiling = startHeapCeiling({
      mib: 40,
      headroomMib: 24,
      intervalMs: 5,
      heapUsed: () => heap,
    });
    try {
      await sleep(30);
      expect(ceiling.collections).toBe(0);

      heap = 41 * MIB; // garbage piles up past the mark
      live = heap;
      await vi.waitFor(() => expect(ceiling.collections).toBe(1));
      // The real collector ran, then the heap read back as it was: the next mark is that plus
      // the headroom, so a heap that stays large is not collected over and over.
      expect(ceiling.threshold).toBe(live + 24 * MIB);
      await sleep(30);
      expect(ceiling.collections).toBe(1);

      heap = live + 25 * MIB;
      await vi.waitFor(() => expect(ceiling.collections).toBe(2));
    } finally {
      ceiling.stop();
    }
    const stopped = ceiling.collections;
    heap = 500 * MIB;
    await sleep(30);
    expect(ceiling.collections).toBe(stopped);
  });

  it('frees the garbage of the real heap', async () => {
    const ceiling = startHeapCeiling({ mib: 1, intervalMs: 5 });
    try {
      let garbage: object[] | null = Array.from({ length: 300_000 }, (_, i) => ({ i }));
      const before = process.memoryUsage().heapUsed;
      garbage = null;
      await vi.waitFor(() => expect(ceiling.collections).toBeGreaterThan(0));
      expect(garbage).toBeNull();
      expect(process.memoryUsage().heapUsed).toBeLessThan(before);
    } finally {
      ceiling.stop();
    }
  });
});
