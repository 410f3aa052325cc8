import { describe, expect, it } from 'vitest';
import { utcInstant } from '../../src/contract/utc-instant.js';

describe('utcInstant', () => {
  it('normalises a zoned instant to UTC with milliseconds', () => {
    expect(utcInstant('2026-11-21T03:00:00+01:00')).toBe('2026-11-21T02:00:00.000Z');
    expect(utcInstant('2026-11-21T02:00:00.123456Z')).toBe('2026-11-21T02:00:00.123Z');
  });

  it('reads years 0 to 99 as written, not as 1900 to 1999', () => {
    expect(utcInstant('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000Z');
    expect(utcInstant('0001-01-01T00:00:00.000Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(utcInstant('0004-02-29T12:00:00Z')).toBe('0004-02-29T12:00:00.000Z');
  });

  it('refuses a date that does not exist, a time out of range, and no zone', () => {
    expect(utcInstant('2026-02-30T02:00:00Z')).toBeUndefined();
    expect(utcInstant('0003-02-29T02:00:00Z')).toBeUndefined();
    expect(utcInstant('2026-11-21T24:00:00Z')).toBeUndefined();
    expect(utcInstant('2026-11-21T02:00:00')).toBeUndefined();
  });
});
