import { request } from 'undici';
import type { TestSandbox } from '../../support/test-sandbox.js';

/** What a raw call saw: no contract validation, so injected faults can be observed as they are. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** Wall-clock milliseconds from sending to the last body byte. */
  readonly ms: number;
}

/** Options of a raw call. */
export interface RawCallOptions {
  /** Merchant index in `t.merchants` whose key is sent (default 0). */
  readonly merchant?: number;
  readonly query?: Record<string, string | number | undefined>;
  readonly body?: unknown;
}

/**
 * One call with a bare undici `request` over the sandbox's TLS agent. Socket errors (a reset, a
 * dropped connection, a truncated body) reject, as they would for any client.
 */
export async function rawCall(
  t: TestSandbox,
  method: 'GET' | 'POST',
  path: string,
  options: RawCallOptions = {},
): Promise<RawAnswer> {
  const url = new URL(path, t.sandbox.baseUrl);
  for (const [name, value] of Object.entries(options.query ?? {})) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const key = t.sandbox.merchants[options.merchant ?? 0]?.apiKey ?? '';
  const headers: Record<string, string> = { 'x-api-key': key };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const started = performance.now();
  const response = await request(url, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    dispatcher: t.agent,
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    headers: response.headers,
    text,
    ms: performance.now() - started,
  };
}

/** Replace the fault lab's rules through the control surface; fails the test on a refusal. */
export async function setFaults(t: TestSandbox, rules: readonly unknown[]): Promise<void> {
  const answer = await t.control.call('PUT', '/_control/faults', { body: { rules } });
  if (answer.status !== 200)
    throw new Error(`PUT /_control/faults: ${answer.status} ${answer.text}`);
}

/** Empty the fault lab. */
export async function clearFaults(t: TestSandbox): Promise<void> {
  const answer = await t.control.call('DELETE', '/_control/faults');
  if (answer.status !== 200)
    throw new Error(`DELETE /_control/faults: ${answer.status} ${answer.text}`);
}
