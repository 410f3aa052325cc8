import { describe, expect, it } from 'vitest';
import { formatMinor, toMinor, toMinorOrThrow } from '../../src/money/decimal.js';

describe('toMinor', () => {
  it.each([
    ['12.50', 2, 1250],
    ['12.5', 2, 1250],
    ['12', 2, 1200],
    ['0.01', 2, 1],
    ['1000', 0, 1000],
    ['0.125', 3, 125],
    ['007.10', 2, 710],
    ['0', 2, 0],
  ])('reads %s with exponent %i as %i minor units', (text, exponent, minor) => {
    expect(toMinor(text, exponent)).toEqual({ ok: true, minor });
  });

  it('refuses more fractional digits than the exponent instead of rounding, even zeros', () => {
    expect(toMinor('1.001', 2)).toEqual({ ok: false, reason: 'too-precise' });
    expect(toMinor('1.500', 2)).toEqual({ ok: false, reason: 'too-precise' });
    expect(toMinor('100.0', 0)).toEqual({ ok: false, reason: 'too-precise' });
    expect(toMinor('1.5', 0)).toEqual({ ok: false, reason: 'too-precise' });
    expect(toMinor('0.0005', 3)).toEqual({ ok: false, reason: 'too-precise' });
  });

  // Digits of other scripts (Arabic-Indic, full-width) and a line break at either end too.
  it.each([
    ...['', '.5', '1.', '+1', '-1', '1e3', ' 1', '1,00', 'abc', '0x10', 'Infinity', 'NaN'],
    ...['\u0661\u0662', '\uff11\uff12', '1\n', '\n1', '1_000', '1 000'],
  ])('refuses %j as not a decimal when unsigned', (text) => {
    expect(toMinor(text, 2)).toEqual({ ok: false, reason: 'not-a-decimal' });
  });

  it('reads a leading minus only when signed', () => {
    expect(toMinor('-12.50', 2, { signed: true })).toEqual({ ok: true, minor: -1250 });
    expect(toMinor('-0.00', 2, { signed: true })).toEqual({ ok: true, minor: 0 });
  });

  it.each(['+12.50', '+0', '--1', '- 1', '-', '-.5', '-1.'])(
    'refuses %j as not a decimal even when signed',
    (text) => {
      expect(toMinor(text, 2, { signed: true })).toEqual({ ok: false, reason: 'not-a-decimal' });
    },
  );

  it('refuses amounts beyond the safe integer range rather than losing digits', () => {
    expect(toMinor('90071992547409.92', 2)).toEqual({ ok: false, reason: 'too-large' });
    expect(toMinor('90071992547409.91', 2)).toEqual({ ok: true, minor: 9007199254740991 });
  });

  it('throws with the text and reason from toMinorOrThrow', () => {
    expect(() => toMinorOrThrow('1.234', 2)).toThrow(/"1.234" is too-precise/);
  });
});

describe('formatMinor', () => {
  it.each([
    [1250, 2, '12.50'],
    [1, 2, '0.01'],
    [0, 2, '0.00'],
    [-1250, 2, '-12.50'],
    [-5, 2, '-0.05'],
    [1000, 0, '1000'],
    [-7, 0, '-7'],
    [5, 3, '0.005'],
    [123456, 3, '123.456'],
  ])('writes %i with exponent %i as %s', (minor, exponent, text) => {
    expect(formatMinor(minor, exponent)).toBe(text);
  });

  it('round-trips through toMinor for every exponent', () => {
    for (const exponent of [0, 2, 3]) {
      for (const minor of [0, 1, 9, 10, 99, 100, 101, 123456789, -1, -100, -123456789]) {
        expect(toMinorOrThrow(formatMinor(minor, exponent), exponent, { signed: true })).toBe(
          minor,
        );
      }
    }
  });

  it('refuses a non-integer, or a number past 2^53 that may have lost its last digits', () => {
    expect(() => formatMinor(1.5, 2)).toThrow(RangeError);
    expect(() => formatMinor(2 ** 53, 2)).toThrow(RangeError);
  });

  it.each([
    [2n ** 53n, 2, '90071992547409.92'],
    [-(2n ** 64n) - 1n, 3, '-18446744073709551.617'],
    [-5n, 2, '-0.05'],
    [0n, 0, '0'],
  ])(
    'writes the bigint %s with exponent %i as %s (sums and differences past 2^53)',
    (minor, exponent, text) => {
      expect(formatMinor(minor, exponent)).toBe(text);
    },
  );
});
