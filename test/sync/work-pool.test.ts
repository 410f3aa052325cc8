import { describe, expect, it } from 'vitest';
import { runWorkPool } from '../../src/sync/work-pool.js';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('the work pool', () => {
  it('runs jobs and the jobs they hand back, never more than the concurrency at once', async () => {
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await runWorkPool<number>(
      [8, 8],
      async (n) => {
        running += 1;
        peak = Math.max(peak, running);
        await tick();
        running -= 1;
        if (n > 1) return [n / 2, n / 2];
        done.push(n);
        return [];
      },
      { concurrency: 3 },
    );
    expect(done).toHaveLength(16);
    expect(peak).toBe(3);
  });

  it('stops starting jobs after the first error, lets running ones finish, then throws it', async () => {
    const finished: number[] = [];
    const started: number[] = [];
    await expect(
      runWorkPool<number>(
        [1, 2, 3, 4, 5, 6],
        async (n) => {
          started.push(n);
          await tick();
          if (n === 1) throw new Error('boom');
          finished.push(n);
          return [];
        },
        { concurrency: 2 },
      ),
    ).rejects.toThrow('boom');
    expect(finished).toEqual([2]);
    expect(started).toEqual([1, 2]);
  });

  it('tells onFailure of the first error at once, while the running jobs are still running', async () => {
    const told: string[] = [];
    let release: () => void = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const pool = runWorkPool<number>(
      [1, 2, 3],
      async (n) => {
        if (n === 2) await slow;
        else throw new Error(`boom ${n}`);
        return [];
      },
      { concurrency: 3, onFailure: (error) => told.push((error as Error).message) },
    );
    await tick();
    // Job 2 has not finished, yet the first failure is already known; the second is not told.
    expect(told).toEqual(['boom 1']);
    release();
    await expect(pool).rejects.toThrow('boom 1');
    expect(told).toEqual(['boom 1']);
  });

  it('starts nothing more once the signal is aborted', async () => {
    const stop = new AbortController();
    const started: number[] = [];
    await runWorkPool<number>(
      [1, 2, 3, 4],
      async (n) => {
        started.push(n);
        if (n === 1) stop.abort();
        await tick();
        return [];
      },
      { concurrency: 1, signal: stop.signal },
    );
    expect(started).toEqual([1]);
  });
});
