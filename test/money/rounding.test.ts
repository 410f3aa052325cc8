import { describe, expect, it } from 'vitest';
import { percentOf } from '../../src/money/percent.js';
import { divideRounded } from '../../src/money/rounding.js';

describe('divideRounded', () => {
  it('rounds ties away from zero with half-up', () => {
    expect(divideRounded(25n, 10n, 'half-up')).toBe(3n);
    expect(divideRounded(-25n, 10n, 'half-up')).toBe(-3n);
    expect(divideRounded(15n, 10n, 'half-up')).toBe(2n);
    expect(divideRounded(24n, 10n, 'half-up')).toBe(2n);
    expect(divideRounded(26n, 10n, 'half-up')).toBe(3n);
  });

  it('rounds ties to the even neighbour with half-even', () => {
    expect(divideRounded(25n, 10n, 'half-even')).toBe(2n);
    expect(divideRounded(35n, 10n, 'half-even')).toBe(4n);
    expect(divideRounded(-25n, 10n, 'half-even')).toBe(-2n);
    expect(divideRounded(26n, 10n, 'half-even')).toBe(3n);
  });

  it('truncates with down and steps away from zero with up', () => {
    expect(divideRounded(29n, 10n, 'down')).toBe(2n);
    expect(divideRounded(-29n, 10n, 'down')).toBe(-2n);
    expect(divideRounded(21n, 10n, 'up')).toBe(3n);
    expect(divideRounded(-21n, 10n, 'up')).toBe(-3n);
    expect(divideRounded(20n, 10n, 'up')).toBe(2n);
  });

  it('handles a negative denominator and refuses zero', () => {
    expect(divideRounded(25n, -10n, 'half-up')).toBe(-3n);
    expect(() => divideRounded(1n, 0n, 'half-up')).toThrow(RangeError);
  });
});

describe('percentOf', () => {
  it('rounds an exact tie half-up: 2.5% of 0.20 USD is 0.005, charged as 0.01', () => {
    expect(percentOf(20, '2.5')).toBe(1);
  });

  it('rounds below a tie down: 2.5% of 10.50 is 0.2625 -> 0.26', () => {
    expect(percentOf(1050, '2.5')).toBe(26);
  });

  it('rounds a tie half-up in a 0-decimal currency: 1.5% of 100 JPY is 1.5 -> 2', () => {
    expect(percentOf(100, '1.5')).toBe(2);
  });

  it('rounds a tie half-up in a 3-decimal currency: 0.5% of 0.101 KWD is 0.000505 -> 0.001', () => {
    expect(percentOf(101, '0.5')).toBe(1);
  });

  it('handles half-even ties when asked', () => {
    expect(percentOf(20, '2.5', 'half-even')).toBe(0);
    expect(percentOf(60, '2.5', 'half-even')).toBe(2);
  });

  it('is zero for a zero percentage or amount', () => {
    expect(percentOf(123456, '0')).toBe(0);
    expect(percentOf(0, '3')).toBe(0);
  });

  it('keeps large amounts exact', () => {
    // 1.25% of 90,071,992,547,409.91 USD: exact in BigInt, would drift in floating point.
    expect(percentOf(9007199254740991, '1.25')).toBe(112589990684262);
  });

  it('refuses a percentage that is not decimal text', () => {
    expect(() => percentOf(100, '-1')).toThrow(RangeError);
    expect(() => percentOf(100, '1e2')).toThrow(RangeError);
  });
});

describe('percentOf on ties both ways, odd percentages and every exponent', () => {
  it.each([
    // amount (minor units), percent, half-up (away from zero), half-even
    [50, '1', 1, 0], // 0.50 USD at 1 %: 0.005 -> 0.01 / 0.00
    [-50, '1', -1, 0], // a refund's -0.005 -> -0.01 / -0.00
    [150, '1', 2, 2], // 0.015 -> 0.02 either way
    [-150, '1', -2, -2],
    [200, '2.345', 5, 5], // 4.69 minor units -> 5
    [1000, '2.345', 23, 23], // 23.45 -> 23 (below the tie)
    [2000, '2.345', 47, 47], // 46.9 -> 47
    [-2000, '2.345', -47, -47],
    [1, '50', 1, 0], // 1 JPY at 50 %: 0.5 -> 1 / 0
    [-1, '50', -1, 0],
    [3, '50', 2, 2], // 1.5 -> 2 either way
    [101, '0.5', 1, 1], // 0.101 KWD at 0.5 %: 0.505 fils, above the tie -> 1 either way
    [100, '0.5', 1, 0], // 0.100 BHD at 0.5 %: exactly 0.5 fils -> 1 / 0
    [12345, '0', 0, 0],
    [12345, '100', 12345, 12345],
    [12345, '100.000', 12345, 12345],
    [-12345, '100', -12345, -12345],
    [1, '0.0000000001', 0, 0],
  ])('%d at %s percent: %d half-up, %d half-even', (amount, percent, up, even) => {
    expect(percentOf(amount, percent)).toBe(up);
    expect(percentOf(amount, percent, 'half-even')).toBe(even);
  });

  it('refuses percentages that are not plain decimal text', () => {
    for (const text of ['1.', '.5', '+1', ' 1', '1 ', '1e1', '١', '0x1', '', '-0'])
      expect(() => percentOf(100, text), text).toThrow(RangeError);
  });
});

describe('percentOf at the edge of the integer range', () => {
  it('refuses a fee beyond 2^53 minor units instead of rounding it', () => {
    expect(() => percentOf(Number.MAX_SAFE_INTEGER, '200')).toThrow(/safe integer range/);
    expect(() => percentOf(Number.MIN_SAFE_INTEGER, '200')).toThrow(/safe integer range/);
  });

  it('keeps a fee of exactly the largest safe integer, the last one a number holds exactly', () => {
    expect(percentOf(Number.MAX_SAFE_INTEGER, '100')).toBe(Number.MAX_SAFE_INTEGER);
    expect(percentOf(Number.MIN_SAFE_INTEGER, '100')).toBe(Number.MIN_SAFE_INTEGER);
  });

  it('refuses an amount beyond 2^53 minor units, which a number already holds rounded', () => {
    // 2^53 + 1 cents reads as 2^53: 1 % of it would be charged on the wrong amount, unseen.
    expect(() => percentOf(Number.MAX_SAFE_INTEGER + 2, '1')).toThrow(RangeError);
    expect(() => percentOf(-(Number.MAX_SAFE_INTEGER + 2), '1')).toThrow(RangeError);
    expect(() => percentOf(Number.NaN, '1')).toThrow(RangeError);
    expect(percentOf(Number.MAX_SAFE_INTEGER, '0')).toBe(0);
  });
});
