import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { Agent } from 'undici';
import type { ResolvedClientOptions } from './client-options.js';

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

/**
 * The client's own keep-alive pool: one connection per unit of concurrency, TLS verification on
 * (never switched off), an extra CA added to Node's default trust rather than replacing it, and
 * the connect, headers and body timeouts. The trust store is parsed once, into one TLS context
 * that every connection shares: given as `ca`, it was parsed again for each connection (about
 * 140 roots, 20 ms of CPU each time).
 */
export function createAgent(options: ResolvedClientOptions): Agent {
  const trust =
    options.ca === undefined
      ? {}
      : { secureContext: tls.createSecureContext({ ca: [...defaultCertificates(), options.ca] }) };
  return new Agent({
    connections: options.concurrency,
    keepAliveTimeout: KEEP_ALIVE_MS,
    headersTimeout: options.timeouts.headersMs,
    bodyTimeout: options.timeouts.bodyMs,
    connect: {
      rejectUnauthorized: true,
      timeout: options.timeouts.connectMs,
      ...trust,
    },
  });
}
