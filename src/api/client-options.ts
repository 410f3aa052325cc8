import { X509Certificate } from 'node:crypto';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { ClientConfigError } from './client-config-error.js';
import { bypassesProxy } from './proxy-route.js';

/** How to reach the card-issuing API and how hard to try; only `baseUrl` and `apiKey` needed. */
export interface CardIssuingClientOptions {
  /** `https://` only; a trailing slash is tolerated and a path prefix kept (`https://host/v1`). */
  baseUrl: string;
  apiKey: string;
  /** Extra trusted CA (PEM text), added to Node's root store, not replacing it. */
  ca?: string;
  /** Most requests in flight and pool connections (default 8). */
  concurrency?: number;
  /**
   * Connect, response-headers and body-idle timeouts in ms (default 10 s / 30 s / 30 s), and the
   * most the whole body may take however steadily it trickles (default 120 s).
   */
  timeouts?: { connectMs?: number; headersMs?: number; bodyMs?: number; bodyTotalMs?: number };
  /**
   * The largest response body read, in bytes, before and after undoing a content coding
   * (default 16 MiB; a page of 100 records is some 50 KB): a larger one fails the call.
   */
  maxBodyBytes?: number;
  /** Attempts per call, backoff base and ceiling, and the cap on a Retry-After wait. */
  retry?: {
    maxAttempts?: number;
    baseDelayMs?: number;
    maxDelayMs?: number;
    retryAfterCapMs?: number;
  };
  /** Retries and rate limiting are logged on a `{ module: 'api' }` child, without the key. */
  logger?: Logger;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  /** How to wait between attempts (default a timer that the signal cancels). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Send through this dispatcher instead of the client's own pool (which is then not built). */
  dispatcher?: Dispatcher;
  /**
   * An HTTP proxy to reach the upstream through, by CONNECT tunnels (TLS stays end to end):
   * `url` is `http://[user:password@]host:port` (or `https://`, or `host:port`), `noProxy` the
   * hosts that go around it in `NO_PROXY`'s syntax. A loopback upstream never goes through it.
   */
  proxy?: { url: string; noProxy?: string };
}

/** The proxy the client tunnels through. */
export interface ResolvedProxy {
  /** `http://host:port`, without credentials: what messages name, and what is dialled. */
  readonly shown: string;
  /**
   * `Basic base64(user:password)` from the URL's credentials, percent-escapes undone (a user
   * without a password sends `user:`, as curl does), for each CONNECT's `proxy-authorization`;
   * undefined when the URL carries none.
   */
  readonly authorization: string | undefined;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborts the call, waits included: the call rejects with UPSTREAM_ABORTED. */
  signal?: AbortSignal;
}

/** Options after defaults and checks; what the client actually runs on. */
export interface ResolvedClientOptions {
  /** `https://host[:port]`. */
  readonly origin: string;
  /** The path prefix without a trailing slash, `''` for none. */
  readonly pathPrefix: string;
  readonly apiKey: string;
  readonly ca: string | undefined;
  /** Undefined when there is none, or when this upstream goes around it. */
  readonly proxy: ResolvedProxy | undefined;
  readonly concurrency: number;
  readonly timeouts: {
    readonly connectMs: number;
    readonly headersMs: number;
    readonly bodyMs: number;
    readonly bodyTotalMs: number;
  };
  readonly maxBodyBytes: number;
  readonly retry: {
    readonly maxAttempts: number;
    readonly baseDelayMs: number;
    readonly maxDelayMs: number;
    readonly retryAfterCapMs: number;
  };
}

function checkedUrl(baseUrl: unknown): URL {
  if (typeof baseUrl !== 'string') throw new ClientConfigError('baseUrl', 'must be a string');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (error) {
    throw new ClientConfigError('baseUrl', 'must be an absolute https:// URL', { cause: error });
  }
  if (url.protocol !== 'https:') {
    throw new ClientConfigError('baseUrl', `must use https:// (got ${url.protocol}//)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new ClientConfigError('baseUrl', 'must not carry credentials');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ClientConfigError('baseUrl', 'must not carry a query or a fragment');
  }
  return url;
}

function checkedCa(ca: unknown): string | undefined {
  if (ca === undefined) return undefined;
  if (typeof ca !== 'string' || !ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ClientConfigError('ca', 'must be PEM text with at least one certificate');
  }
  try {
    new X509Certificate(ca);
  } catch (error) {
    throw new ClientConfigError('ca', 'must be a parsable PEM certificate', { cause: error });
  }
  return ca;
}

/** The proxy URL, `http://` assumed when it names no scheme (`proxy.corp:3128`, as curl reads it). */
function proxyUrl(text: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch (error) {
    // Never the text itself: it may hold the proxy's password.
    throw new ClientConfigError('proxy.url', 'must be an http:// or https:// URL', {
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ClientConfigError(
      'proxy.url',
      `must be an http:// or https:// URL (got ${url.protocol}//)`,
    );
  }
  if (url.hostname === '') throw new ClientConfigError('proxy.url', 'must name a host');
  return url;
}

function checkedProxy(
  proxy: CardIssuingClientOptions['proxy'],
  origin: URL,
): ResolvedProxy | undefined {
  if (proxy === undefined) return undefined;
  if (typeof proxy.url !== 'string') throw new ClientConfigError('proxy.url', 'must be a string');
  if (proxy.noProxy !== undefined && typeof proxy.noProxy !== 'string')
    throw new ClientConfigError('proxy.noProxy', 'must be a string');
  const url = proxyUrl(proxy.url);
  if (bypassesProxy(origin, proxy.noProxy ?? '')) return undefined;
  return Object.freeze({ shown: `${url.protocol}//${url.host}`, authorization: basicAuth(url) });
}

/** The `proxy-authorization` value of `url`'s credentials, undefined for none. */
function basicAuth(url: URL): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  let pair: string;
  try {
    pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  } catch (error) {
    throw new ClientConfigError(
      'proxy.url',
      'must percent-encode its user and password (a % not followed by two hex digits)',
      { cause: error },
    );
  }
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

function checkedNumber(
  key: string,
  value: unknown,
  fallback: number,
  { min, integer }: { min: number; integer: boolean },
): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= min &&
    (!integer || Number.isInteger(value));
  if (!ok)
    throw new ClientConfigError(key, `must be ${integer ? 'an integer' : 'a number'} >= ${min}`);
  return value;
}

/**
 * Check the options and fill in defaults; the result is frozen.
 * @throws ClientConfigError naming the option (`baseUrl` for a non-https URL, `apiKey`, `ca`...).
 */
export function resolveClientOptions(options: CardIssuingClientOptions): ResolvedClientOptions {
  const url = checkedUrl(options.baseUrl);
  if (typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
    throw new ClientConfigError('apiKey', 'must be a non-empty string');
  }
  // undici's rule for a header value: a key it refuses would fail every request instead.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(options.apiKey)) {
    throw new ClientConfigError('apiKey', 'must be text an HTTP header can carry (no line breaks)');
  }
  const ca = checkedCa(options.ca);
  const proxy = checkedProxy(options.proxy, url);
  const int = { min: 1, integer: true };
  const ms = { min: 1, integer: false };
  const delay = { min: 0, integer: false };
  const timeouts = options.timeouts ?? {};
  const retry = options.retry ?? {};
  return Object.freeze({
    origin: url.origin,
    pathPrefix: url.pathname.replace(/\/+$/, ''),
    apiKey: options.apiKey,
    ca,
    proxy,
    concurrency: checkedNumber('concurrency', options.concurrency, 8, int),
    timeouts: Object.freeze({
      connectMs: checkedNumber('timeouts.connectMs', timeouts.connectMs, 10_000, ms),
      headersMs: checkedNumber('timeouts.headersMs', timeouts.headersMs, 30_000, ms),
      bodyMs: checkedNumber('timeouts.bodyMs', timeouts.bodyMs, 30_000, ms),
      bodyTotalMs: checkedNumber('timeouts.bodyTotalMs', timeouts.bodyTotalMs, 120_000, ms),
    }),
    maxBodyBytes: checkedNumber('maxBodyBytes', options.maxBodyBytes, 16 * 1024 * 1024, int),
    retry: Object.freeze({
      maxAttempts: checkedNumber('retry.maxAttempts', retry.maxAttempts, 6, int),
      baseDelayMs: checkedNumber('retry.baseDelayMs', retry.baseDelayMs, 250, delay),
      maxDelayMs: checkedNumber('retry.maxDelayMs', retry.maxDelayMs, 15_000, delay),
      retryAfterCapMs: checkedNumber('retry.retryAfterCapMs', retry.retryAfterCapMs, 60_000, delay),
    }),
  });
}
