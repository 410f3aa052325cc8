import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import type { ResolvedClientOptions } from './client-options.js';

/** How long an idle pooled connection is kept for the next request. */
const KEEP_ALIVE_MS = 10_000;

/**
 * The client's own keep-alive pool: one connection per unit of concurrency, TLS verification on
 * (never switched off), an extra CA added to Node's root store rather than replacing it, and
 * the connect, headers and body timeouts.
 */
export function createAgent(options: ResolvedClientOptions): Agent {
  return new Agent({
    connections: options.concurrency,
    keepAliveTimeout: KEEP_ALIVE_MS,
    headersTimeout: options.timeouts.headersMs,
    bodyTimeout: options.timeouts.bodyMs,
    connect: {
      rejectUnauthorized: true,
      timeout: options.timeouts.connectMs,
      ...(options.ca === undefined ? {} : { ca: [...rootCertificates, options.ca] }),
    },
  });
}
