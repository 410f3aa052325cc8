import { randomBytes } from 'node:crypto';

const MERCHANT_ORDER_NO = /^[\x21-\x7e]{1,64}$/;

/** True for a valid merchantOrderNo: 1-64 printable ASCII characters without spaces. */
export function isMerchantOrderNo(text: string): boolean {
  return MERCHANT_ORDER_NO.test(text);
}

/**
 * A fresh merchantOrderNo for an order the operator did not name: `cs-`, the UTC second it
 * was made (`20261121T020000Z`), and 10 random hex digits (40 bits), e.g.
 * `cs-20261121T020000Z-3f9a1c2b7d`. It sorts by time and never repeats in practice.
 * @example newMerchantOrderNo(new Date()) // 'cs-20261121T020000Z-3f9a1c2b7d'
 */
export function newMerchantOrderNo(
  now: Date,
  randomHex: () => string = () => randomBytes(5).toString('hex'),
): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `cs-${stamp}-${randomHex()}`;
}
