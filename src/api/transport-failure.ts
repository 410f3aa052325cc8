/** How a request failed below HTTP: what the retry loop and the error code depend on. */
export type TransportFailure = 'timeout' | 'network' | 'tls' | 'unknown';

const TIMEOUT_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
]);

const NETWORK_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_REQ_CONTENT_LENGTH_MISMATCH',
  'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** OpenSSL verification codes that do not say CERT in their name. */
const TLS_CODES: ReadonlySet<string> = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
]);

function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  let current: unknown = error;
  // undici sometimes wraps the socket error; look a few causes deep.
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
    current = (current as { cause?: unknown }).cause;
  }
  return codes;
}

/**
 * Sort a thrown transport error: a timeout or a network fault (both retried), a TLS verification
 * failure (never retried: the next attempt would meet the same certificate), or unknown.
 * @example classifyTransportError(Object.assign(new Error(), { code: 'ECONNRESET' })) // 'network'
 */
export function classifyTransportError(error: unknown): TransportFailure {
  const codes = codesOf(error);
  if (codes.some((c) => TLS_CODES.has(c) || c.includes('CERT') || /^ERR_(TLS|SSL)_/.test(c)))
    return 'tls';
  if (codes.some((c) => TIMEOUT_CODES.has(c))) return 'timeout';
  if (codes.some((c) => NETWORK_CODES.has(c))) return 'network';
  return 'unknown';
}

/** The first error code in the cause chain, for logs. */
export function transportErrorCode(error: unknown): string | undefined {
  return codesOf(error)[0];
}
