import { describe, expect, it } from 'vitest';
import { currencyExponent, isKnownCurrency } from '../../src/money/currency.js';

describe('currency exponents', () => {
  it('follow ISO 4217 for 2-, 0- and 3-decimal currencies', () => {
    expect(currencyExponent('USD')).toBe(2);
    expect(currencyExponent('EUR')).toBe(2);
    expect(currencyExponent('JPY')).toBe(0);
    expect(currencyExponent('KRW')).toBe(0);
    expect(currencyExponent('KWD')).toBe(3);
    expect(currencyExponent('BHD')).toBe(3);
  });

  it('refuse an unknown code rather than guessing an exponent', () => {
    expect(isKnownCurrency('XYZ')).toBe(false);
    expect(() => currencyExponent('XYZ')).toThrow(/unknown currency "XYZ"/);
    expect(isKnownCurrency('toString')).toBe(false);
  });
});
