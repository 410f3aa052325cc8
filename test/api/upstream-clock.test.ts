import { describe, expect, it } from 'vitest';
import { UpstreamClock } from '../../src/api/upstream-clock.js';

/** A clock whose local time the test sets. */
function clockAt(local: { now: number }) {
  return new UpstreamClock(() => local.now);
}

describe('UpstreamClock', () => {
  it('knows nothing before an answer', () => {
    const clock = new UpstreamClock();
    expect(clock.offset()).toBeUndefined();
    expect(clock.now()).toBeUndefined();
  });

  it('keeps the local clock while every Date header agrees with it', () => {
    const local = { now: 1_000_500 };
    const clock = clockAt(local);
    // Written in the second 1,000,000-1,000,999 upstream, between 1,000,450 and 1,000,500 here.
    clock.observe(1_000_000, 1_000_450, 1_000_500);
    clock.observe(1_001_000, 1_001_020, 1_001_060);
    expect(clock.offset()).toBe(0);
    local.now = 1_002_345;
    expect(clock.now()).toBe(1_002_345);
  });

  it("corrects a local clock ten minutes behind by the middle of what every answer allows, narrowing as answers cross the upstream's seconds", () => {
    const behind = 600_000;
    const local = { now: 0 };
    const clock = clockAt(local);
    // Upstream moments 5,000,300 and 5,000,980 (Date 5,000,000), then 5,001,010 (Date 5,001,000),
    // each answered 20 ms after it was sent, half-way through the round trip.
    const answer = (upstream: number) => {
      const sent = upstream - behind - 10;
      clock.observe(Math.floor(upstream / 1000) * 1000, sent, sent + 20);
    };
    answer(5_000_300);
    // Only the second is known: the offset lies between 600,000 - 310 and 600,000 + 710.
    expect(clock.offset()).toBe(behind + 200);
    // A second answer in the same second narrows the upper bound to 600,000 + 30.
    answer(5_000_980);
    expect(clock.offset()).toBe(behind - 140);
    // One just past the second's end raises the lower bound to 600,000 - 20.
    answer(5_001_010);
    const offset = clock.offset() ?? 0;
    expect(offset).toBe(behind + 5);
    local.now = 1_000;
    expect(clock.now()).toBe(1_000 + offset);
  });

  it('gives the earliest the answers allow, not after the upstream clock, where the middle may be half a second after it', () => {
    const behind = 600_000;
    const local = { now: 0 };
    const clock = clockAt(local);
    expect(clock.earliest()).toBeUndefined();
    // Upstream moment 5,000,300 (Date 5,000,000), answered 20 ms after it was sent.
    const sent = 5_000_300 - behind - 10;
    clock.observe(5_000_000, sent, sent + 20);
    // The offset lies between 600,000 - 310 and 600,000 + 710: its middle is 200 ms after the
    // truth, its lower bound 310 ms before it.
    local.now = 1_000;
    expect(clock.now()).toBe(1_000 + behind + 200);
    expect(clock.earliest()).toBe(1_000 + behind - 310);
  });

  it('gives the local clock as the earliest too while it agrees with every answer', () => {
    const local = { now: 1_000_500 };
    const clock = clockAt(local);
    clock.observe(1_000_000, 1_000_450, 1_000_500);
    expect(clock.earliest()).toBe(1_000_500);
  });

  it('starts afresh when an answer cannot agree with the earlier ones (a clock was set)', () => {
    const clock = new UpstreamClock(() => 0);
    clock.observe(10_000, 9_990, 10_010);
    expect(clock.offset()).toBe(0);
    // The upstream's clock jumped an hour ahead: no offset fits both answers.
    clock.observe(3_610_000, 10_990, 11_010);
    // Bounds [3,598,990, 3,600,010] from that answer alone.
    expect(clock.offset()).toBe(3_599_500);
  });
});
