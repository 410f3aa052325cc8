/** The Luhn checksum of a digit string is valid. */
export function isLuhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * A 16-digit Luhn-valid test card number that starts with `bin` (6 digits), continues with
 * `middle` (5 digits) and ends in `lastFour`. The digit just before `lastFour` is chosen to make
 * the checksum hold: it sits at an odd position from the right, so it counts undoubled and
 * exactly one value works.
 */
export function testCardNumber(bin: string, middle: string, lastFour: string): string {
  if (!/^\d{6}$/.test(bin) || !/^\d{5}$/.test(middle) || !/^\d{4}$/.test(lastFour)) {
    throw new RangeError('bin, middle and lastFour must be 6, 5 and 4 digits');
  }
  for (let check = 0; check <= 9; check++) {
    const candidate = `${bin}${middle}${check}${lastFour}`;
    if (isLuhnValid(candidate)) return candidate;
  }
  throw new Error('unreachable: one check digit always satisfies Luhn');
}
