import type { MerchantSource } from '../config/index.js';

/**
 * The line of exit 3: whose key the upstream refused (401), or read another merchant than the
 * configured `merchantId` (the sync's `error`, UPSTREAM_OTHER_MERCHANT), and where that key was
 * read from, so the operator knows which file or variable to renew; never the key itself. Or
 * the proxy that refused its credentials on the way (UPSTREAM_PROXY_REFUSED), never them.
 *
 * @example
 * refusedKeyMessage(merchant);
 * // 'the upstream refused the key of default (401), read from the file CARDSYNC_API_KEY_FILE names'
 */
export function refusedKeyMessage(
  merchant: Pick<MerchantSource, 'name' | 'keyOrigin'> | undefined,
  error?: { readonly code: string; readonly message: string } | null,
): string {
  if (error?.code === 'UPSTREAM_PROXY_REFUSED') {
    // The client's message, `<operation>: proxy ... refused the tunnel to ... with 407 (...)`:
    // it names the proxy without its credentials; the key itself was never sent.
    const refused = error.message.replace(/^\w+: /, '');
    return merchant === undefined ? refused : `${refused}, for ${merchant.name}`;
  }
  if (error?.code === 'UPSTREAM_OTHER_MERCHANT') {
    // The sync's message, `<step>: the key reads merchant ..., not the merchantId ...`.
    const reads = error.message.replace(/^\w+: the key /, '');
    if (merchant === undefined) return `the key of a merchant ${reads}`;
    return `the key of ${merchant.name}, read from ${merchant.keyOrigin}, ${reads}`;
  }
  if (merchant === undefined) return 'the upstream refused the key of a merchant (401)';
  return `the upstream refused the key of ${merchant.name} (401), read from ${merchant.keyOrigin}`;
}
