import { describe, expect, it } from 'vitest';
import { AdaptiveLimiter, type Permit } from '../../src/api/index.js';

/** A limiter on a fake clock whose sleep moves the clock (and records the wait). */
function fakeLimiter(max: number) {
  const clock = { now: 1_000_000 };
  const waits: number[] = [];
  const limiter = new AdaptiveLimiter({
    max,
    now: () => clock.now,
    sleep: async (ms) => {
      waits.push(ms);
      clock.now += ms;
    },
  });
  return { limiter, clock, waits };
}

async function take(limiter: AdaptiveLimiter, n: number): Promise<Permit[]> {
  const permits: Permit[] = [];
  for (let i = 0; i < n; i++) permits.push(await limiter.acquire());
  return permits;
}

/** True when the promise has settled after the pending microtasks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('AdaptiveLimiter (AIMD gate)', () => {
  it('lets `limit` requests in flight and queues the next until one is released', async () => {
    const { limiter } = fakeLimiter(2);
    const [first] = await take(limiter, 2);
    const third = limiter.acquire();
    expect(await settled(third)).toBe(false);
    first?.release();
    first?.release(); // twice is harmless
    expect(await settled(third)).toBe(true);
    expect(limiter.inFlight).toBe(2);
  });

  it('halves the limit once per congestion event: 429s to requests already in flight do not halve it again', async () => {
    const { limiter } = fakeLimiter(8);
    const inFlight = await take(limiter, 8);
    expect(limiter.recordRateLimited(inFlight[0] as Permit)).toBe(true);
    expect(limiter.limit).toBe(4);
    for (const permit of inFlight.slice(1)) expect(limiter.recordRateLimited(permit)).toBe(false);
    expect(limiter.limit).toBe(4);
    for (const permit of inFlight) permit.release();
    // A request granted after the decrease that is still refused is a new event.
    const later = await limiter.acquire();
    expect(limiter.recordRateLimited(later)).toBe(true);
    expect(limiter.limit).toBe(2);
    later.release();
  });

  it('never goes below 1, and a 429 at 1 is no decrease (nothing for the log to call halved)', async () => {
    const { limiter } = fakeLimiter(2);
    const decreased: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const permit = await limiter.acquire();
      decreased.push(limiter.recordRateLimited(permit));
      permit.release();
    }
    expect(limiter.limit).toBe(1);
    expect(decreased).toEqual([true, false, false, false]);
  });

  it('adds one step per `limit` successes and stops at the maximum', async () => {
    const { limiter } = fakeLimiter(8);
    const permit = await limiter.acquire();
    limiter.recordRateLimited(permit);
    permit.release();
    expect(limiter.limit).toBe(4);
    const steps: number[] = [];
    for (let i = 0; i < 30; i++) {
      limiter.recordSuccess();
      steps.push(limiter.limit);
    }
    // 4 successes to reach 5, 5 more to 6, 6 more to 7, 7 more to 8.
    expect(steps[3]).toBe(5);
    expect(steps[7]).toBe(5);
    expect(steps[8]).toBe(6);
    expect(steps[14]).toBe(7);
    expect(steps[20]).toBe(7);
    expect(steps[21]).toBe(8);
    expect(steps[29]).toBe(8);
  });

  it('wakes queued requests when the limit grows back', async () => {
    const { limiter } = fakeLimiter(2);
    const first = await limiter.acquire();
    limiter.recordRateLimited(first);
    expect(limiter.limit).toBe(1);
    const second = limiter.acquire();
    expect(await settled(second)).toBe(false);
    limiter.recordSuccess(); // 1 success at limit 1 -> 2
    expect(await settled(second)).toBe(true);
  });

  it('makes every new request wait out the Retry-After of a 429 (the shared not-before time)', async () => {
    const { limiter, clock, waits } = fakeLimiter(4);
    const permit = await limiter.acquire();
    limiter.recordRateLimited(permit, 2_000);
    permit.release();
    expect(limiter.notBefore).toBe(clock.now + 2_000);
    const started = clock.now;
    await limiter.acquire();
    expect(waits).toEqual([2_000]);
    expect(clock.now).toBe(started + 2_000);
    // Once the moment has passed nobody waits.
    await limiter.acquire();
    expect(waits).toEqual([2_000]);
  });

  it('does not make a caller wait twice for a pause it already slept through', async () => {
    const { limiter, clock, waits } = fakeLimiter(4);
    const permit = await limiter.acquire();
    limiter.recordRateLimited(permit, 3_000);
    permit.release();
    await limiter.acquire(undefined, clock.now + 3_000);
    expect(waits).toEqual([]);
  });

  it('terminates with a sleep that does not move the clock', async () => {
    const limiter = new AdaptiveLimiter({ max: 2, now: () => 5, sleep: async () => {} });
    const permit = await limiter.acquire();
    limiter.recordRateLimited(permit, 60_000);
    permit.release();
    await expect(limiter.acquire()).resolves.toBeDefined();
  });

  it('rejects a queued request whose signal aborts, and forgets it', async () => {
    const { limiter } = fakeLimiter(1);
    const held = await limiter.acquire();
    const controller = new AbortController();
    const queued = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(queued).rejects.toThrow('stop');
    held.release();
    expect(limiter.inFlight).toBe(0);
    await expect(limiter.acquire(AbortSignal.abort())).rejects.toBeDefined();
  });
});
