import { parseHttpDate } from './http-date.js';

/** The backoff settings of {@link backoffDelay} and {@link retryDelay}. */
export interface BackoffSettings {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly retryAfterCapMs: number;
}

/**
 * Full-jitter exponential backoff before attempt `attempt + 1`, `attempt` counting from 1:
 * `random() * min(maxDelay, base * 2^(attempt-1))`.
 * @example backoffDelay(3, { baseDelayMs: 250, maxDelayMs: 15_000, retryAfterCapMs: 0 }, () => 0.5)
 * // 500
 */
export function backoffDelay(
  attempt: number,
  settings: BackoffSettings,
  random: () => number,
): number {
  const ceiling = Math.min(
    settings.maxDelayMs,
    settings.baseDelayMs * 2 ** Math.max(0, attempt - 1),
  );
  return Math.floor(random() * ceiling);
}

/**
 * Milliseconds a `Retry-After` header asks for: delay-seconds or an HTTP-date measured from
 * `nowMs`; undefined when absent or unreadable; never negative.
 * @example parseRetryAfter('2', Date.now()) // 2000
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  nowMs: number,
): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const at = parseHttpDate(text, nowMs);
  return at === undefined ? undefined : Math.max(0, at - nowMs);
}

/**
 * The wait before the next attempt: the jittered backoff, or, when the upstream named a
 * Retry-After, the larger of the two; capped at `retryAfterCapMs` so a hostile or broken header
 * cannot park the job for a day.
 */
export function retryDelay(
  attempt: number,
  retryAfterMs: number | undefined,
  settings: BackoffSettings,
  random: () => number,
): number {
  const jitter = backoffDelay(attempt, settings, random);
  if (retryAfterMs === undefined) return jitter;
  return Math.min(settings.retryAfterCapMs, Math.max(jitter, retryAfterMs));
}

/**
 * True for the statuses worth another attempt: 408 (the server, or a proxy before it, timed out
 * waiting for the request: nothing was taken, reference-model section 7's timeouts), 429 and
 * every 5xx.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status <= 599);
}

/**
 * True for a 3xx: the client follows no redirect (it could lead the key off to another host, or
 * to plain http://), nor retries one. It refuses nothing either: after a POST, a 303 is how a
 * server says it took the order.
 */
export function isRedirectStatus(status: number | undefined): boolean {
  return status !== undefined && status >= 300 && status <= 399;
}
