import { ConfigError } from './config-error.js';

const EXPECTED = 'expected an https:// URL';

/**
 * A refused value as a message may quote it: rebuilt from its parts, with `user:password@` as
 * `***@` and a query or fragment as `?…`/`#…` (either may carry a key, in whatever spelling the
 * URL parser accepts). Text that does not parse as a URL is not quoted at all: it is as likely a
 * key set in the wrong variable as a mistyped URL.
 */
function shown(text: string, url: URL | undefined): string {
  if (url === undefined) return 'text that does not parse as one (not shown)';
  // An opaque URL (`mailto:x`, `abc:def`) has no host: its scheme is all that is safe to show.
  if (url.host === '') return JSON.stringify(`${url.protocol}…`);
  const credentials = url.username !== '' || url.password !== '' ? '***@' : '';
  // `https://host` parses to the path `/`; it is shown as written.
  const written = text.split(/[?#]/, 1)[0] ?? '';
  const path = url.pathname === '/' && !written.endsWith('/') ? '' : url.pathname;
  const rest = `${url.search === '' ? '' : '?…'}${url.hash === '' ? '' : '#…'}`;
  const rebuilt = `${url.protocol}//${credentials}${url.host}${path}`;
  return JSON.stringify(`${rebuilt.length > 100 ? `${rebuilt.slice(0, 100)}...` : rebuilt}${rest}`);
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
    throw new ConfigError(key, `${EXPECTED}, got ${shown(text, undefined)}`);
  }
  if (url.protocol !== 'https:') throw new ConfigError(key, `${EXPECTED}, got ${shown(text, url)}`);
  if (url.username || url.password) {
    throw new ConfigError(key, `${EXPECTED} without credentials in it; give the key separately`);
  }
  if (url.search || url.hash) {
    throw new ConfigError(key, `${EXPECTED} without a query or fragment, got ${shown(text, url)}`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
