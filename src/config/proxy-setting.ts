import { ConfigError } from './config-error.js';

/**
 * The HTTP proxy the upstream is reached through, from the variables curl, npm and git read.
 *
 * `url` is a non-enumerable property, as a merchant's `apiKey` is: it may carry the proxy's
 * password, so `JSON.stringify`, a logger and `{ ...proxy }` leave it out; `shown` is the same
 * URL without credentials.
 */
export interface ProxySetting {
  /** As given, credentials included (non-enumerable; see above). */
  readonly url: string;
  /** `http://proxy.example:3128`: scheme, host and port only. */
  readonly shown: string;
  /** The variable it came from: `https_proxy`, `HTTPS_PROXY`, `http_proxy` or `HTTP_PROXY`. */
  readonly from: string;
  /** `NO_PROXY`'s entries as given (`''` for none): hosts that go around the proxy. */
  readonly noProxy: string;
}

/**
 * The variables read, first set wins: the `https_` ones, lower case first as curl reads them,
 * then the `http_` ones, which npm and undici also take for https:// URLs when no `https_` one
 * is set. The upstream is https:// only, so there is no other use for them.
 */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const;
const NO_PROXY_VARIABLES = ['no_proxy', 'NO_PROXY'] as const;

function firstSet(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): { name: string; value: string } | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value !== undefined && value !== '') return { name, value };
  }
  return undefined;
}

/**
 * The proxy the environment names, or undefined for none. A value without a scheme
 * (`proxy.corp:3128`) is read as `http://`, as curl does. A value that is no http:// or https://
 * URL is a ConfigError naming the variable, never quoting it (it may hold a password).
 * @example proxySetting({ HTTPS_PROXY: 'http://u:p@proxy:3128' })?.shown // 'http://proxy:3128'
 */
export function proxySetting(
  env: Readonly<Record<string, string | undefined>>,
): ProxySetting | undefined {
  const given = firstSet(env, PROXY_VARIABLES);
  if (given === undefined) return undefined;
  const expected = 'expected a proxy URL such as http://proxy.example:3128';
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(given.value) ? given.value : `http://${given.value}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    throw new ConfigError(given.name, `${expected}; this one does not parse (not shown)`, {
      cause: error,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ConfigError(given.name, `${expected} (http:// or https://), got ${url.protocol}//`);
  if (url.hostname === '') throw new ConfigError(given.name, `${expected}; this one names no host`);
  try {
    decodeURIComponent(url.username + url.password);
  } catch (error) {
    throw new ConfigError(
      given.name,
      'expected its user and password percent-encoded (a % not followed by two hex digits; not shown)',
      { cause: error },
    );
  }
  const setting = {
    shown: `${url.protocol}//${url.host}`,
    from: given.name,
    noProxy: firstSet(env, NO_PROXY_VARIABLES)?.value ?? '',
  };
  Object.defineProperty(setting, 'url', { value: url.href, enumerable: false });
  return setting as ProxySetting;
}
