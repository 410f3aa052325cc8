/**
 * The proxy did not open a tunnel to the upstream: it could not be reached (`status` undefined,
 * the socket error as `cause`) or it answered the CONNECT with another status than 200 (407: it
 * wants credentials, or refused the ones given; 403: it does not let this host through; 502, 503,
 * 504: it could not reach the upstream, or is overloaded). `proxy` is the proxy's URL without
 * credentials.
 * @example new ProxyTunnelError('http://proxy.corp:3128', 'cards.example.com:443', 407)
 */
export class ProxyTunnelError extends Error {
  readonly code = 'PROXY_TUNNEL_FAILED' as const;
  readonly proxy: string;
  /** `host:port` the tunnel was asked for. */
  readonly target: string;
  readonly status: number | undefined;

  constructor(
    proxy: string,
    target: string,
    status: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      status === undefined
        ? `no tunnel through proxy ${proxy} to ${target}`
        : `proxy ${proxy} answered ${status} to CONNECT ${target}`,
      options,
    );
    this.name = 'ProxyTunnelError';
    this.proxy = proxy;
    this.target = target;
    this.status = status;
  }
}
