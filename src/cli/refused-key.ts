import type { MerchantSource } from '../config/index.js';

/**
 * The line of exit 3: whose key the upstream refused (401) and where that key was read from, so
 * the operator knows which file or variable to renew; never the key itself.
 *
 * @example
 * refusedKeyMessage(merchant);
 * // 'the upstream refused the key of default (401), read from the file CARDSYNC_API_KEY_FILE names'
 */
export function refusedKeyMessage(
  merchant: Pick<MerchantSource, 'name' | 'keyOrigin'> | undefined,
): string {
  if (merchant === undefined) return 'the upstream refused the key of a merchant (401)';
  return `the upstream refused the key of ${merchant.name} (401), read from ${merchant.keyOrigin}`;
}
