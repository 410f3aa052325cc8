import { BlockList, isIP } from 'node:net';

/** Addresses no proxy can reach for us: its own loopback is not ours. */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** `hostname` as a URL gives it, without IPv6 brackets and a trailing dot, in lower case. */
function bareHost(hostname: string): string {
  return hostname
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
}

function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** Two IP addresses the same once written alike (`::1` and `0:0::1`). */
function sameAddress(a: string, b: string): boolean {
  const written = (ip: string) => (isIP(ip) === 6 ? new URL(`http://[${ip}]`).hostname : ip);
  return written(a) === written(b);
}

/** One `NO_PROXY` entry: a name (and its subdomains), an address, or a CIDR block; any port or one. */
function matches(entry: string, host: string, port: number): boolean {
  let name = entry.toLowerCase();
  let only: number | undefined;
  // `host:port` and `[v6]:port`; a bare IPv6 address has several colons and no port.
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(name);
  if (withPort) {
    name = withPort[1] as string;
    only = Number(withPort[2]);
  }
  if (only !== undefined && only !== port) return false;
  name = bareHost(name);
  const slash = name.indexOf('/');
  if (slash > 0) {
    const network = name.slice(0, slash);
    const prefix = Number(name.slice(slash + 1));
    const family = isIP(network);
    if (family === 0 || !Number.isInteger(prefix) || isIP(host) === 0) return false;
    const block = new BlockList();
    try {
      block.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
    } catch {
      return false;
    }
    return block.check(host, isIP(host) === 4 ? 'ipv4' : 'ipv6');
  }
  if (isIP(name) !== 0) return isIP(host) !== 0 && sameAddress(name, host);
  name = name.replace(/^\*?\./, '');
  return name !== '' && (host === name || host.endsWith(`.${name}`));
}

/**
 * Whether a request to `origin` goes around the proxy: always for a loopback host (`localhost`,
 * `*.localhost`, 127.0.0.0/8, ::1), which no proxy can reach for us, as Go's and browsers'
 * clients decide; otherwise when `noProxy` (`NO_PROXY`'s syntax: entries split by commas or
 * spaces) has `*`, the host or a parent domain (`example.com`, `.example.com` or
 * `*.example.com`), its address, or a CIDR block holding it (`10.0.0.0/8`), any of them with or
 * without a port (`host:8443` matches that port only).
 * @example bypassesProxy(new URL('https://cards.corp.example'), '.corp.example') // true
 */
export function bypassesProxy(origin: URL, noProxy: string): boolean {
  const host = bareHost(origin.hostname);
  if (isLoopback(host)) return true;
  const port = Number(origin.port) || (origin.protocol === 'http:' ? 80 : 443);
  const entries = noProxy.split(/[\s,]+/).filter((entry) => entry !== '');
  return entries.some((entry) => entry === '*' || matches(entry, host, port));
}
