/** How a quotient that falls between two minor units is settled. */
export type RoundingMode = 'half-up' | 'half-even' | 'down' | 'up';

/** The rounding modes by name, for configuration. */
export const ROUNDING_MODES: readonly RoundingMode[] = ['half-up', 'half-even', 'down', 'up'];

/**
 * Divide two integers and round the quotient with `mode`. `half-up` rounds ties away from zero
 * (2.5 -> 3, -2.5 -> -3), `half-even` to the even neighbour, `down` toward zero, `up` away from zero.
 * @example divideRounded(25n, 10n, 'half-up') // 3n
 */
export function divideRounded(numerator: bigint, denominator: bigint, mode: RoundingMode): bigint {
  if (denominator === 0n) throw new RangeError('division by zero');
  if (denominator < 0n) return divideRounded(-numerator, -denominator, mode);
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = magnitude / denominator;
  const remainder = magnitude % denominator;
  let rounded = quotient;
  if (remainder !== 0n) {
    const twice = remainder * 2n;
    switch (mode) {
      case 'down':
        break;
      case 'up':
        rounded = quotient + 1n;
        break;
      case 'half-up':
        if (twice >= denominator) rounded = quotient + 1n;
        break;
      case 'half-even':
        if (twice > denominator || (twice === denominator && quotient % 2n === 1n))
          rounded = quotient + 1n;
        break;
    }
  }
  return negative ? -rounded : rounded;
}
