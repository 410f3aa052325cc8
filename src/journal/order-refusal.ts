import { isRedirectStatus } from '../api/retry-policy.js';
import { UpstreamError } from '../api/upstream-error.js';
import { ERROR_STATUS } from '../contract/index.js';

/** The `error_code` journaled for a 401: no order was taken, and nothing is remembered. */
export const UNAUTHORIZED_CODE = 'UNAUTHORIZED';

/**
 * The code to journal a REJECTED order with, when the upstream's answer proves it did not take
 * the order: a 401, or a 4xx refusal with its body's code (`INSUFFICIENT_BALANCE`,
 * `DUPLICATE_ORDER`, ...; `HTTP_<status>` without one). Undefined for every other failure
 * (timeouts, 5xx, resets, 429s after all retries, a 2xx that could not be read, an abort, a
 * redirect, which the client does not follow and which after a POST may well mean "taken, see
 * there"): the order may have been taken, so it stays SUBMITTED until a retry learns its outcome.
 */
export function refusalCode(error: unknown): string | undefined {
  if (!(error instanceof UpstreamError)) return undefined;
  if (error.code === 'UPSTREAM_UNAUTHORIZED') return UNAUTHORIZED_CODE;
  if (error.code !== 'UPSTREAM_REJECTED') return undefined;
  if (isRedirectStatus(error.status)) return undefined;
  return error.upstreamCode ?? `HTTP_${error.status ?? 400}`;
}

/**
 * True for a refusal the upstream does not remember against the merchantOrderNo (a 401, or a
 * 400 validation failure: reference-model section 1), so the reference may be used again:
 * re-running the order sends it afresh. Other refusals are final: the upstream would answer
 * the same, and the journal answers for it. A code the interface does not list (a real
 * upstream's own) is taken as forgotten: its status is not journaled, and were it a 400, holding
 * the reference would refuse for good an order the upstream would take; sent again, a refusal
 * the upstream does remember comes back as it was.
 */
export function isForgottenRefusal(code: string): boolean {
  if (code === UNAUTHORIZED_CODE || code === 'HTTP_400') return true;
  if (/^HTTP_\d{3}$/.test(code)) return false;
  const status = (ERROR_STATUS as Partial<Record<string, number>>)[code];
  return status === undefined || status === 400;
}
