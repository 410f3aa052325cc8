import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { runSchedule, validateSchedule } from '../../src/runner/nightly-schedule.js';

const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

describe('validateSchedule', () => {
  // '0 2 15 * 1#1': the 15th that is a month's first Monday, each field valid alone, never a time.
  it.each(['nope', '61 * * * *', '* * * * * * *', '', '0 2 15 * 1#1'])(
    'refuses the cron expression %j',
    (cron) => {
      expect(() => validateSchedule(cron)).toThrow(
        expect.objectContaining({ code: 'SCHEDULE_CRON_INVALID' }),
      );
    },
  );

  it('refuses an unknown time zone and takes a real one', () => {
    expect(() => validateSchedule('0 2 * * *', 'Mars/Olympus')).toThrow(
      expect.objectContaining({ code: 'SCHEDULE_TIMEZONE_INVALID' }),
    );
    expect(() => validateSchedule('0 2 * * *', 'Europe/Berlin')).not.toThrow();
    expect(() => validateSchedule('*/2 * * * * *')).not.toThrow();
  });
});

describe('runSchedule', () => {
  it('never runs two at once: a tick during a run is skipped; a stop waits for the run', async () => {
    const stop = new AbortController();
    const spans: { start: number; end: number; stopped: boolean }[] = [];
    let inFlight = 0;
    let most = 0;
    // Each run takes 2.2 s (or until stopped) on a schedule of every second.
    const job = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      const span = { start: Date.now(), end: 0, stopped: false };
      spans.push(span);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2200);
        stop.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          span.stopped = true;
          setTimeout(resolve, 100);
        });
      });
      span.end = Date.now();
      inFlight -= 1;
    };
    const done = runSchedule({ cron: '* * * * * *', signal: stop.signal, logger, job });
    await new Promise((resolve) => setTimeout(resolve, 5500));
    stop.abort();
    const result = await done;
    expect(most).toBe(1);
    expect(result.runs).toBe(spans.length);
    expect(result.runs).toBeGreaterThanOrEqual(2);
    expect(result.skipped).toBeGreaterThanOrEqual(2);
    for (const [i, span] of spans.entries()) {
      expect(span.end, 'every run had ended when the schedule resolved').toBeGreaterThan(0);
      if (i > 0) expect(span.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
    }
  }, 15_000);

  it('goes on after a run that failed', async () => {
    const stop = new AbortController();
    let calls = 0;
    const done = runSchedule({
      cron: '* * * * * *',
      signal: stop.signal,
      logger,
      job: async () => {
        calls += 1;
        if (calls >= 2) stop.abort();
        throw new Error('boom');
      },
    });
    const result = await done;
    expect(result.runs).toBe(2);
  }, 10_000);

  /**
   * When runs of `cron` in `timezone` start on fake timers from `from`: `meanwhile` moves the
   * clock (timers and all), and may set the system time alone, as a host's sleep does.
   */
  async function startsOver(
    schedule: { cron: string; timezone: string; from: string },
    meanwhile: () => Promise<unknown>,
  ): Promise<string[]> {
    vi.useFakeTimers({ now: new Date(schedule.from) });
    try {
      const stop = new AbortController();
      const starts: string[] = [];
      const done = runSchedule({
        cron: schedule.cron,
        timezone: schedule.timezone,
        signal: stop.signal,
        logger,
        job: async () => {
          starts.push(new Date().toISOString());
        },
      });
      await meanwhile();
      stop.abort();
      await done;
      return starts;
    } finally {
      vi.useRealTimers();
    }
  }

  it('runs the night a spring-forward skips its time once, as the clocks jump, as cron does', async () => {
    // Europe/Berlin has no 02:00 on 2026-03-29: the clocks go from 01:59:59 CET to 03:00 CEST.
    const starts = await startsOver(
      { cron: '0 2 * * *', timezone: 'Europe/Berlin', from: '2026-03-28T12:00:00Z' },
      () => vi.advanceTimersByTimeAsync(3 * 24 * 3_600_000),
    );
    expect(starts).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
    ]);
  });

  it('starts a tick the host slept through (suspended over 02:00, awake at 02:20) when it wakes, not the next night', async () => {
    const starts = await startsOver(
      { cron: '0 2 * * *', timezone: 'UTC', from: '2026-06-10T01:59:00Z' },
      async () => {
        await vi.advanceTimersByTimeAsync(1_000);
        // The host sleeps: its clock moves on, no timer fires until it wakes.
        vi.setSystemTime(new Date('2026-06-10T02:20:00Z'));
        await vi.advanceTimersByTimeAsync(24 * 3_600_000);
      },
    );
    // Its timer fires once the host runs again (here the 59 s it had left): 21 minutes late.
    expect(starts).toEqual(['2026-06-10T02:20:59.000Z', '2026-06-11T02:00:00.000Z']);
  });

  it('starts a tick the host slept through when it fell asleep long before it (asleep 23:00 to 02:20), not the next night', async () => {
    // Timers count no time the host is suspended: the timer armed after one night's run for the
    // next fired as much later as the host slept (05:20 here), over an hour late, so that night
    // was dropped as missed.
    const starts = await startsOver(
      { cron: '0 2 * * *', timezone: 'UTC', from: '2026-06-09T02:00:30Z' },
      async () => {
        await vi.advanceTimersByTimeAsync(21 * 3_600_000);
        vi.setSystemTime(new Date('2026-06-10T02:20:00Z'));
        await vi.advanceTimersByTimeAsync(24 * 3_600_000);
      },
    );
    expect(starts).toHaveLength(2);
    expect(starts[0]! >= '2026-06-10T02:20:00' && starts[0]! < '2026-06-10T02:22:00').toBe(true);
    expect(starts[1]).toBe('2026-06-11T02:00:00.000Z');
  });

  it('skips a tick the host slept through by more than an hour, and runs the next one on time', async () => {
    const starts = await startsOver(
      { cron: '0 2 * * *', timezone: 'UTC', from: '2026-06-09T02:00:30Z' },
      async () => {
        await vi.advanceTimersByTimeAsync(21 * 3_600_000);
        vi.setSystemTime(new Date('2026-06-10T03:30:00Z'));
        await vi.advanceTimersByTimeAsync(24 * 3_600_000);
      },
    );
    expect(starts).toEqual(['2026-06-11T02:00:00.000Z']);
  });

  it('waits for a skipped time months off without running early', async () => {
    const starts = await startsOver(
      { cron: '0 2 29 3 *', timezone: 'Europe/Berlin', from: '2026-01-01T00:00:00Z' },
      () => vi.advanceTimersByTimeAsync(120 * 24 * 3_600_000),
    );
    expect(starts).toEqual(['2026-03-29T01:00:00.000Z']);
  });

  it('resolves at once when stopped before the first tick', async () => {
    const stop = new AbortController();
    let calls = 0;
    const done = runSchedule({
      cron: '0 2 * * *',
      timezone: 'UTC',
      signal: stop.signal,
      logger,
      job: async () => {
        calls += 1;
      },
    });
    stop.abort();
    expect(await done).toEqual({ runs: 0, skipped: 0 });
    expect(calls).toBe(0);
  });
});
