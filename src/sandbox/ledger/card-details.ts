import { hashHex } from '../random/seeded-random.js';
import { testCardNumber } from './card-number.js';

/** A Visa test-range BIN: numbers from it never reach a real issuer. */
const TEST_BIN = '400000';

/** The digits of a hex digest, reduced to decimal digits. */
function digitsFrom(hex: string): string {
  return [...hex].map((c) => String(Number.parseInt(c, 16) % 10)).join('');
}

/** Sensitive fields of a new card, deterministic from the seed and the card id. */
export function issueCardDetails(
  seed: string,
  cardId: string,
  createdAt: number,
): { lastFour: string; cardNumber: string; cvv: string; expiryMonth: string; expiryYear: string } {
  const digits = digitsFrom(hashHex(32, seed, 'card-details', cardId));
  const lastFour = digits.slice(0, 4);
  const month = (Number(digits.slice(12, 14)) % 12) + 1;
  return {
    lastFour,
    cardNumber: testCardNumber(TEST_BIN, digits.slice(4, 9), lastFour),
    cvv: digits.slice(9, 12),
    expiryMonth: String(month).padStart(2, '0'),
    expiryYear: String(new Date(createdAt).getUTCFullYear() + 3 + (Number(digits[14]) % 3)),
  };
}
