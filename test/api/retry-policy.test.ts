import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  isRetryableStatus,
  parseRetryAfter,
  retryDelay,
} from '../../src/api/index.js';

const settings = { baseDelayMs: 250, maxDelayMs: 15_000, retryAfterCapMs: 60_000 };

describe('retry policy', () => {
  it('draws full jitter below an exponential ceiling capped at maxDelayMs', () => {
    expect(backoffDelay(1, settings, () => 0.999)).toBe(249);
    expect(backoffDelay(3, settings, () => 0.5)).toBe(500);
    expect(backoffDelay(20, settings, () => 0.5)).toBe(7_500);
    expect(backoffDelay(4, settings, () => 0)).toBe(0);
  });

  it('reads Retry-After as delay-seconds or as an HTTP-date, and ignores junk', () => {
    const now = Date.parse('2026-11-21T02:00:00.000Z');
    expect(parseRetryAfter('2', now)).toBe(2_000);
    expect(parseRetryAfter(['3', '9'], now)).toBe(3_000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 02:00:05 GMT', now)).toBe(5_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 01:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  it('waits the larger of the jitter and Retry-After, capped at retryAfterCapMs', () => {
    expect(retryDelay(1, undefined, settings, () => 0.5)).toBe(125);
    expect(retryDelay(1, 2_000, settings, () => 0.5)).toBe(2_000);
    expect(retryDelay(10, 1_000, settings, () => 0.5)).toBe(7_500);
    expect(retryDelay(1, 86_400_000, settings, () => 0.5)).toBe(60_000);
  });

  it('retries 408, 429 and every 5xx, and no other status', () => {
    expect([408, 429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 201, 400, 401, 404, 409, 422, 600].some(isRetryableStatus)).toBe(false);
  });
});
