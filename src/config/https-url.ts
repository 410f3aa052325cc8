import { ConfigError } from './config-error.js';

const EXPECTED = 'expected an https:// URL';

/** The text quoted for a message: bounded, and with any `user:password@` masked. */
function shown(text: string): string {
  const masked = text.replace(/\/\/[^/?#]*@/, '//***@');
  return JSON.stringify(masked.length > 100 ? `${masked.slice(0, 100)}...` : masked);
}

/**
 * An upstream base URL from `key`: `https://` only, no credentials, query or fragment; returned
 * without a trailing slash so that `${baseUrl}/cards` is the way to build a request URL.
 *
 * @example
 * parseBaseUrl('CARDSYNC_BASE_URL', 'https://api.example.com/v1/'); // 'https://api.example.com/v1'
 * @throws ConfigError naming `key` for anything else.
 */
export function parseBaseUrl(key: string, text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigError(key, `${EXPECTED}, got ${shown(text)}`);
  }
  if (url.protocol !== 'https:') throw new ConfigError(key, `${EXPECTED}, got ${shown(text)}`);
  if (url.username || url.password) {
    throw new ConfigError(key, `${EXPECTED} without credentials in it; give the key separately`);
  }
  if (url.search || url.hash) {
    throw new ConfigError(key, `${EXPECTED} without a query or fragment, got ${shown(text)}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
