import type { IncomingHttpHeaders } from 'node:http';
import { UnknownContentCodingError } from './content-coding.js';
import { ProxyTunnelError } from './proxy-tunnel-error.js';
import { isRedirectStatus, isRetryableStatus, parseRetryAfter } from './retry-policy.js';
import type { BodyProblem, ReceivedResponse } from './send-request.js';
import { classifyTransportError, transportErrorCode } from './transport-failure.js';
import type { UpstreamErrorCode } from './upstream-error.js';

/** How one attempt failed, and whether another may follow. */
export interface AttemptFailure {
  readonly code: UpstreamErrorCode;
  /** `envelope`: a well-formed JSON body of the wrong shape, retried only a couple of times. */
  readonly retry: 'yes' | 'no' | 'envelope';
  /** What happened, without the operation name or the attempt count. */
  readonly message: string;
  readonly status?: number | undefined;
  readonly upstreamCode?: string | undefined;
  readonly requestId?: string | undefined;
  /** The wait the upstream asked for (Retry-After), already capped. */
  readonly retryAfterMs?: number | undefined;
  readonly cause?: unknown;
}

/** What judging a non-2xx answer needs besides the answer. */
export interface StatusContext {
  /** Now, by the upstream's `Date` header if sent (an HTTP-date Retry-After counts from it). */
  readonly nowMs: number;
  readonly retryAfterCapMs: number;
  /** Text that must never appear in a message (the API key), should an upstream echo it. */
  readonly secret: string;
}

/** One header's value (the first, if repeated). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function bodyField(body: unknown, name: 'code' | 'message'): unknown {
  return typeof body === 'object' && body !== null
    ? (body as Record<string, unknown>)[name]
    : undefined;
}

/**
 * `text` without `secret`, as written or URL-encoded: an upstream may echo the key inside a URL
 * (a redirect's Location, a request line quoted in a message), where a key with `+`, `/` or `=`
 * (a base64 one) shows as `%2B`, `%2F` and `%3D` (or `%2b`, `%2f`, `%3d`).
 */
function withoutSecret(text: string, secret: string): string {
  return text.replaceAll(secret, '[redacted]').replace(encodedPattern(secret), '[redacted]');
}

/** `secret` URL-encoded, its escapes in either case (`%2B` or `%2b`: RFC 3986 allows both). */
function encodedPattern(secret: string): RegExp {
  const source = encodeURIComponent(secret).replace(
    /%([0-9A-F]{2})|[.*+?^${}()|[\]\\]/g,
    (match, hex) =>
      hex === undefined
        ? `\\${match}`
        : `%${[...hex].map((c: string) => (/[A-F]/.test(c) ? `[${c}${c.toLowerCase()}]` : c)).join('')}`,
  );
  return new RegExp(source, 'g');
}

function upstreamMessage(body: unknown, secret: string): string | undefined {
  const message = bodyField(body, 'message');
  const text = Array.isArray(message)
    ? message.filter((m) => typeof m === 'string').join('; ')
    : typeof message === 'string'
      ? message
      : undefined;
  return text === undefined ? undefined : withoutSecret(text, secret).slice(0, 500);
}

/**
 * The failure a non-2xx answer stands for: 401 never retried; 408, 429 and 5xx retried (with the
 * Retry-After of a 429 or 503); a 3xx a rejection naming where it pointed; any other status a
 * rejection carrying the body's `code`.
 */
export function statusFailure(response: ReceivedResponse, context: StatusContext): AttemptFailure {
  const { status, headers, body } = response;
  const requestId = headerValue(headers, 'x-request-id');
  if (status === 401) {
    return {
      code: 'UPSTREAM_UNAUTHORIZED',
      retry: 'no',
      message: '401 Unauthorized',
      status,
      requestId,
    };
  }
  const code = bodyField(body, 'code');
  // The code is journaled and printed like the message: an echoed key is cut from both.
  const upstreamCode = typeof code === 'string' ? withoutSecret(code, context.secret) : undefined;
  const detail = upstreamCode === undefined ? '' : ` ${upstreamCode}`;
  if (isRetryableStatus(status)) {
    const asked =
      status === 429 || status === 503
        ? parseRetryAfter(headers['retry-after'], context.nowMs)
        : undefined;
    return {
      code: status === 429 ? 'UPSTREAM_RATE_LIMITED' : 'UPSTREAM_UNAVAILABLE',
      retry: 'yes',
      message: `answered ${status}${detail}`,
      status,
      upstreamCode,
      requestId,
      retryAfterMs: asked === undefined ? undefined : Math.min(asked, context.retryAfterCapMs),
    };
  }
  if (isRedirectStatus(status)) {
    // undici follows none, and the client asks it to follow none: a redirect could lead the key
    // off to another host, or to plain http://. Where it pointed tells the operator what changed.
    const sent = headerValue(headers, 'location');
    const location = sent === undefined ? undefined : withoutSecret(sent, context.secret);
    const to = location === undefined ? '' : ` to ${location.slice(0, 200)}`;
    return {
      code: 'UPSTREAM_REJECTED',
      retry: 'no',
      message: `redirected with ${status}${to}, which is not followed (is the base URL current?)`,
      status,
      requestId,
    };
  }
  const said = upstreamMessage(body, context.secret);
  return {
    code: 'UPSTREAM_REJECTED',
    retry: 'no',
    message: `rejected with ${status}${detail}${said === undefined ? '' : `: ${said}`}`,
    status,
    upstreamCode,
    requestId,
  };
}

const BODY_PROBLEMS: Readonly<Record<BodyProblem, string>> = {
  'cut-short': 'cut short',
  'not-json': 'is not JSON',
  'unknown-coding': 'cannot be read',
  'bad-coding': 'does not decode',
  'too-large': 'is larger than',
};

/**
 * The failure of a 2xx whose body could not be read whole or parsed: retried like a reset,
 * unless it came in a content coding the client does not read or is over the cap, which the next
 * attempt would be too.
 */
export function bodyFailure(response: ReceivedResponse, maxBodyBytes: number): AttemptFailure {
  const { status, bodyProblem, bodyError } = response;
  const timedOut = classifyTransportError(bodyError) === 'timeout';
  const why =
    bodyError instanceof UnknownContentCodingError
      ? `: ${bodyError.message}`
      : bodyProblem === 'too-large'
        ? ` ${maxBodyBytes} bytes`
        : '';
  return {
    code: timedOut ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_MALFORMED_RESPONSE',
    retry: bodyProblem === 'unknown-coding' || bodyProblem === 'too-large' ? 'no' : 'yes',
    message: timedOut
      ? `body of a ${status} timed out`
      : `body of a ${status} ${BODY_PROBLEMS[bodyProblem ?? 'not-json']}${why}`,
    status,
    requestId: headerValue(response.headers, 'x-request-id'),
    cause: bodyError,
  };
}

/** The failure of a 2xx whose JSON does not have the contract's envelope. */
export function envelopeFailure(response: ReceivedResponse, reason: string): AttemptFailure {
  return {
    code: 'UPSTREAM_MALFORMED_RESPONSE',
    retry: 'envelope',
    message: `${response.status} response does not match the contract: ${reason}`,
    status: response.status,
    requestId: headerValue(response.headers, 'x-request-id'),
  };
}

const UNTRUSTED = 'its certificate is not signed by a trusted CA (is the CA file right?)';
const OTHER_HOST = 'its certificate is for another host';

/** What a transport error code means, for the operator reading the message. */
const TRANSPORT_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  UND_ERR_SOCKET: 'connection closed by the other side',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve for now',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: OTHER_HOST,
  HOSTNAME_MISMATCH: OTHER_HOST,
  DEPTH_ZERO_SELF_SIGNED_CERT: UNTRUSTED,
  SELF_SIGNED_CERT_IN_CHAIN: UNTRUSTED,
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: UNTRUSTED,
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: UNTRUSTED,
  CERT_SIGNATURE_FAILURE: UNTRUSTED,
  ERR_SSL_WRONG_VERSION_NUMBER: 'it does not speak TLS (a plain http port?)',
};

function described(error: unknown): string {
  const code = transportErrorCode(error) ?? 'no code';
  const reason = TRANSPORT_REASONS[code];
  return reason === undefined ? code : `${code}: ${reason}`;
}

/** The proxy's refusals that say why, beside the status. */
const PROXY_REFUSALS: Readonly<Record<number, string>> = {
  403: 'it does not let this host through',
  407: 'Proxy Authentication Required: are the credentials in its URL right?',
  502: 'it could not reach the upstream',
  503: 'it is unavailable',
  504: 'it timed out reaching the upstream',
};

function tunnelErrorIn(error: unknown): ProxyTunnelError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof ProxyTunnelError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The failure of a tunnel the proxy did not open. Unreachable (refused, reset, timed out), it is
 * retried as an unreachable upstream is; a refusal with 408, 429 or 5xx (502: it could not reach
 * the upstream, 503: overloaded) is retried as the upstream's own would be; any other (407: its
 * credentials, UPSTREAM_PROXY_REFUSED, which ends a run as a refused key does; 403: its policy) is
 * not: the next attempt would meet the same configuration.
 */
function tunnelFailure(tunnel: ProxyTunnelError, baseUrl: string): AttemptFailure {
  const { proxy, status, cause } = tunnel;
  if (status === undefined) {
    const kind = classifyTransportError(cause);
    if (kind === 'tls') {
      // Not the upstream's certificate: CARDSYNC_CA_FILE, which that message suggests, is not
      // used for the proxy's.
      const code = transportErrorCode(cause) ?? 'no code';
      const reason =
        TRANSPORT_REASONS[code] === UNTRUSTED
          ? `${code}: its certificate is not signed by a CA Node trusts (its CA goes in NODE_EXTRA_CA_CERTS)`
          : described(cause);
      return {
        code: 'UPSTREAM_UNAVAILABLE',
        retry: 'no',
        message: `TLS verification of proxy ${proxy} failed (${reason}), on the way to ${baseUrl}`,
        cause: tunnel,
      };
    }
    return {
      code: kind === 'timeout' ? 'UPSTREAM_TIMEOUT' : 'UPSTREAM_UNAVAILABLE',
      retry: kind === 'timeout' || kind === 'network' ? 'yes' : 'no',
      message: `connection to proxy ${proxy} ${kind === 'timeout' ? 'timed out' : 'failed'} (${described(cause)}), on the way to ${baseUrl}`,
      cause: tunnel,
    };
  }
  const why = PROXY_REFUSALS[status];
  return {
    code: status === 407 ? 'UPSTREAM_PROXY_REFUSED' : 'UPSTREAM_UNAVAILABLE',
    retry: isRetryableStatus(status) ? 'yes' : 'no',
    message: `proxy ${proxy} refused the tunnel to ${baseUrl} with ${status}${why === undefined ? '' : ` (${why})`}`,
    cause: tunnel,
  };
}

/**
 * The failure of a request that got no response head: timeouts and network faults are retried;
 * a TLS verification failure is not (the next attempt meets the same certificate), nor is an
 * error nobody recognises. The message names `baseUrl` (never with credentials: the options
 * refuse a URL carrying any), so a run syncing several merchants says which upstream failed, and
 * the proxy it went through, when it did (`proxy`, without its credentials), or failed at.
 */
export function transportFailure(error: unknown, baseUrl: string, proxy?: string): AttemptFailure {
  const tunnel = tunnelErrorIn(error);
  if (tunnel !== undefined) return tunnelFailure(tunnel, baseUrl);
  const what = described(error);
  const target = proxy === undefined ? baseUrl : `${baseUrl} (through proxy ${proxy})`;
  switch (classifyTransportError(error)) {
    case 'timeout':
      return {
        code: 'UPSTREAM_TIMEOUT',
        retry: 'yes',
        message: `${target} timed out (${what})`,
        cause: error,
      };
    case 'network':
      return {
        code: 'UPSTREAM_UNAVAILABLE',
        retry: 'yes',
        message: `connection to ${target} failed (${what})`,
        cause: error,
      };
    case 'tls':
      return {
        code: 'UPSTREAM_UNAVAILABLE',
        retry: 'no',
        message: `TLS verification of ${target} failed (${what})`,
        cause: error,
      };
    default:
      return {
        code: 'UPSTREAM_UNAVAILABLE',
        retry: 'no',
        message: `request to ${target} failed (${what})`,
        cause: error,
      };
  }
}
