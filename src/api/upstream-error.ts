/** What went wrong talking to the upstream; callers branch on this, never on message text. */
export type UpstreamErrorCode =
  /** 401: the key is missing, unknown or revoked. Never retried. */
  | 'UPSTREAM_UNAUTHORIZED'
  /**
   * 407 from the proxy the client tunnels through: the credentials in its URL (HTTPS_PROXY) are
   * wrong. Never retried: like a refused key, a person must mend them, and each try may count
   * against the account behind them.
   */
  | 'UPSTREAM_PROXY_REFUSED'
  /** 429 on every attempt. */
  | 'UPSTREAM_RATE_LIMITED'
  /** 5xx, reset or refused on every attempt, or TLS verification failed (not retried). */
  | 'UPSTREAM_UNAVAILABLE'
  /** Connect, headers or body timeout on every attempt. */
  | 'UPSTREAM_TIMEOUT'
  /** Any other 4xx; `upstreamCode` is the body's `code` (CARD_NOT_FOUND, DUPLICATE_ORDER...). */
  | 'UPSTREAM_REJECTED'
  /** A 2xx body that is not JSON, cut short, or whose envelope does not match the contract. */
  | 'UPSTREAM_MALFORMED_RESPONSE'
  /** One record failed validation: see {@link MalformedRecordError}. */
  | 'UPSTREAM_MALFORMED_RECORD'
  /** The caller's AbortSignal fired. */
  | 'UPSTREAM_ABORTED'
  /**
   * The key reads another merchant than the configuration names: the first page of its cards
   * carries none of the configured `merchantId`. Raised by the sync, not the client.
   */
  | 'UPSTREAM_OTHER_MERCHANT';

/** Details of an {@link UpstreamError} besides its code and message. */
export interface UpstreamErrorDetails {
  /** The contract's operation id, e.g. `listTransactions`. */
  readonly operation: string;
  readonly status?: number | undefined;
  readonly upstreamCode?: string | undefined;
  /** Requests sent for this call, retries included (0 when none left the client). */
  readonly attempts: number;
  readonly requestId?: string | undefined;
  readonly cause?: unknown;
}

/**
 * A call to the card-issuing API that did not succeed, after whatever retries its kind allows.
 * @example if (error instanceof UpstreamError && error.code === 'UPSTREAM_RATE_LIMITED') ...
 */
export class UpstreamError extends Error {
  readonly code: UpstreamErrorCode;
  readonly operation: string;
  readonly status: number | undefined;
  readonly upstreamCode: string | undefined;
  readonly attempts: number;
  readonly requestId: string | undefined;

  constructor(code: UpstreamErrorCode, message: string, details: UpstreamErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'UpstreamError';
    this.code = code;
    this.operation = details.operation;
    this.status = details.status;
    this.upstreamCode = details.upstreamCode;
    this.attempts = details.attempts;
    this.requestId = details.requestId;
  }
}

/**
 * Whether `code` says the credentials were refused: the key (401) or the proxy's (407). A
 * person must mend them, and every later call would meet the same refusal.
 * @example if (refusesCredentials(error.code)) return 'unauthorized';
 */
export function refusesCredentials(code: string | undefined): boolean {
  return code === 'UPSTREAM_UNAUTHORIZED' || code === 'UPSTREAM_PROXY_REFUSED';
}
