import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { Agent, type Dispatcher, Pool, ProxyAgent } from 'undici';
import { checkServerIdentity } from './check-server-identity.js';
import type { ResolvedClientOptions } from './client-options.js';
import { ProxyTunnelError } from './proxy-tunnel-error.js';

/** How long an idle pooled connection is kept for the next request. */
const KEEP_ALIVE_MS = 10_000;

/**
 * The certificates Node trusts by default: its root store and the file `NODE_EXTRA_CA_CERTS`
 * names (and, on a Node started with `--use-system-ca`, the system's). A `ca` option replaces
 * them, so an extra CA must be added to these: an operator whose proxy's CA is in
 * `NODE_EXTRA_CA_CERTS` keeps it when `CARDSYNC_CA_FILE` names another. Node 22.15 and later
 * list them; before, the extra file is read again here (Node has already warned at start when it
 * cannot be read, and goes on without it, as this does).
 */
function defaultCertificates(): string[] {
  const list = (tls as { getCACertificates?: (type: 'default') => string[] }).getCACertificates;
  if (list !== undefined) return list('default');
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  if (extra === undefined || extra === '') return [...tls.rootCertificates];
  try {
    return [...tls.rootCertificates, readFileSync(extra, 'utf8')];
  } catch {
    return [...tls.rootCertificates];
  }
}

type ConnectCallback = (error: Error | null, data: Dispatcher.ConnectData) => void;

/**
 * The pool of connections to the proxy, whose CONNECTs open the tunnels: a tunnel it could not
 * open fails as a {@link ProxyTunnelError} carrying the proxy's status (undici's own says it only
 * in its message), or the socket error when the proxy could not be reached, so the client can tell
 * a 407 from a 502, and either from the upstream's own failures.
 */
class TunnelPool extends Pool {
  readonly #proxy: string;

  constructor(origin: URL, options: Pool.Options, proxy: string) {
    super(origin, options);
    this.#proxy = proxy;
  }

  override connect(options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData>;
  override connect(options: Dispatcher.ConnectOptions, callback: ConnectCallback): void;
  override connect(
    options: Dispatcher.ConnectOptions,
    callback?: ConnectCallback,
  ): Promise<Dispatcher.ConnectData> | undefined {
    if (callback === undefined) return this.#tunnel(options);
    super.connect(options, callback);
    return undefined;
  }

  async #tunnel(options: Dispatcher.ConnectOptions): Promise<Dispatcher.ConnectData> {
    const target = String(options.path);
    let data: Dispatcher.ConnectData;
    try {
      data = await super.connect(options);
    } catch (error) {
      throw new ProxyTunnelError(this.#proxy, target, undefined, { cause: error });
    }
    if (data.statusCode === 200) return data;
    data.socket.on('error', () => {}).destroy();
    throw new ProxyTunnelError(this.#proxy, target, data.statusCode);
  }
}

/**
 * The client's own keep-alive pool: one connection per unit of concurrency, TLS verification on
 * (never switched off), an extra CA added to Node's default trust rather than replacing it, and
 * the connect, headers and body timeouts. The trust store is parsed once, into one TLS context
 * that every connection shares: given as `ca`, it was parsed again for each connection (about
 * 140 roots, 20 ms of CPU each time).
 *
 * With a proxy, each of those connections is a CONNECT tunnel through it, and the upstream's TLS
 * runs inside the tunnel, end to end, with the same verification and trust (undici takes them as
 * `requestTls` there; `connect` would be the proxy's). The proxy's own TLS, for an `https://`
 * proxy, is verified against Node's default trust; its CONNECT answer is awaited as long as a
 * response head.
 */
export function createAgent(options: ResolvedClientOptions): Dispatcher {
  const trust =
    options.ca === undefined
      ? {}
      : { secureContext: tls.createSecureContext({ ca: [...defaultCertificates(), options.ca] }) };
  const upstreamTls = {
    rejectUnauthorized: true,
    checkServerIdentity,
    timeout: options.timeouts.connectMs,
    ...trust,
  };
  const pool = {
    connections: options.concurrency,
    keepAliveTimeout: KEEP_ALIVE_MS,
    headersTimeout: options.timeouts.headersMs,
    bodyTimeout: options.timeouts.bodyMs,
  };
  const { proxy } = options;
  if (proxy === undefined) return new Agent({ ...pool, connect: upstreamTls });
  return new ProxyAgent({
    ...pool,
    // The credentials go as a ready header, not in the URL: undici sends none for a user without
    // a password, and keeps no copy of them this way.
    uri: proxy.shown,
    ...(proxy.authorization === undefined ? {} : { token: proxy.authorization }),
    requestTls: upstreamTls,
    proxyTls: {
      rejectUnauthorized: true,
      checkServerIdentity,
      timeout: options.timeouts.connectMs,
    },
    clientFactory: (origin, factoryOptions) =>
      new TunnelPool(
        origin,
        { ...(factoryOptions as Pool.Options), headersTimeout: options.timeouts.headersMs },
        proxy.shown,
      ),
  });
}
