/**
 * The tests' own decimal arithmetic, written apart from `src/money` so that expected amounts are
 * computed independently of the code under test. Everything is BigInt minor units; no floats.
 */

/** ISO 4217 exponents of the currencies the tests run the sandbox in. */
export const TEST_EXPONENTS: Readonly<Record<string, number>> = { USD: 2, JPY: 0 };

/** The exponent of a currency the tests use; throws for any other. */
export function exponentOf(currency: string): number {
  const exponent = TEST_EXPONENTS[currency];
  if (exponent === undefined) throw new Error(`no test exponent for ${currency}`);
  return exponent;
}

/**
 * Minor units of a response amount. Responses must carry exactly the currency's digits
 * (reference-model section 1), so anything else throws and fails the test.
 * @example minorOf('-12.50', 2) // -1250n
 */
export function minorOf(text: string, exponent: number): bigint {
  const pattern = exponent === 0 ? /^(-?)(\d+)$/ : new RegExp(`^(-?)(\\d+)\\.(\\d{${exponent}})$`);
  const match = pattern.exec(text);
  if (!match) throw new Error(`${JSON.stringify(text)} is not an amount with ${exponent} digits`);
  const magnitude = BigInt(`${match[2]}${match[3] ?? ''}`);
  return match[1] === '-' ? -magnitude : magnitude;
}

/**
 * Decimal text with exactly `exponent` fractional digits for minor units.
 * @example textOf(1250n, 2) // '12.50'
 */
export function textOf(minor: bigint, exponent: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(exponent + 1, '0');
  const body =
    exponent === 0
      ? digits
      : `${digits.slice(0, digits.length - exponent)}.${digits.slice(digits.length - exponent)}`;
  return negative ? `-${body}` : body;
}

/** `amount × percent / 100` as an exact fraction of minor units: `numerator / denominator`. */
export function percentFraction(
  amount: bigint,
  percent: string,
): { numerator: bigint; denominator: bigint } {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(percent);
  if (!match) throw new Error(`${JSON.stringify(percent)} is not a percentage`);
  const fraction = match[2] ?? '';
  return {
    numerator: amount * BigInt(`${match[1]}${fraction}`),
    denominator: 100n * 10n ** BigInt(fraction.length),
  };
}

/** The deposit fee of reference-model section 3: `D × percent / 100`, half-up to minor units. */
export function depositFee(amount: bigint, percent: string): bigint {
  const { numerator, denominator } = percentFraction(amount, percent);
  const quotient = numerator / denominator;
  return 2n * (numerator % denominator) >= denominator ? quotient + 1n : quotient;
}

/**
 * The first amount from `from` on whose fee at `percent` has the remainder that `wanted` accepts
 * (as twice the remainder against the denominator: `tie` means exactly half a minor unit).
 */
export function findAmount(
  percent: string,
  from: bigint,
  wanted: 'tie' | 'below-half' | 'above-half',
): bigint | undefined {
  const { denominator } = percentFraction(1n, percent);
  for (let amount = from; amount < from + 4n * denominator; amount++) {
    const { numerator } = percentFraction(amount, percent);
    const twice = 2n * (numerator % denominator);
    if (wanted === 'tie' && twice === denominator) return amount;
    if (wanted === 'below-half' && twice > 0n && twice < denominator) return amount;
    if (wanted === 'above-half' && twice > denominator) return amount;
  }
  return undefined;
}
