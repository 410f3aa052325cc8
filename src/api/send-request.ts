import type { IncomingHttpHeaders } from 'node:http';
import { type Dispatcher, request } from 'undici';

/** One HTTP request as the client sends it. */
export interface OutgoingRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
}

/** Why a response body could not be used. */
export type BodyProblem = 'cut-short' | 'not-json';

/** A response whose head arrived; the body read whole, then parsed. */
export interface ReceivedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON, or undefined with `bodyProblem` set. */
  readonly body: unknown;
  readonly bodyProblem: BodyProblem | undefined;
  /** The error that ended the body early (socket closed, body timeout), kept as a cause. */
  readonly bodyError: unknown;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Send one request and read its body fully as text, then parse it as JSON. A body that ends early
 * (a socket error mid-body, or fewer bytes than `content-length` promised) or does not parse is
 * reported as a body problem rather than thrown, so the caller still sees the status.
 * @throws the dispatcher's error when no response head arrived (reset, refused, timeout, TLS).
 */
export async function sendRequest(
  dispatcher: Dispatcher,
  outgoing: OutgoingRequest,
): Promise<ReceivedResponse> {
  const response = await request(outgoing.url, {
    dispatcher,
    method: outgoing.method,
    headers: outgoing.headers,
    body: outgoing.body,
    signal: outgoing.signal,
    headersTimeout: outgoing.headersTimeoutMs,
    bodyTimeout: outgoing.bodyTimeoutMs,
  });
  const { statusCode: status, headers } = response;
  let bytes: Buffer;
  try {
    bytes = Buffer.from(await response.body.arrayBuffer());
  } catch (error) {
    return { status, headers, body: undefined, bodyProblem: 'cut-short', bodyError: error };
  }
  const promised = Number(header(headers, 'content-length'));
  if (Number.isInteger(promised) && bytes.length < promised) {
    return { status, headers, body: undefined, bodyProblem: 'cut-short', bodyError: undefined };
  }
  try {
    const body: unknown = JSON.parse(bytes.toString('utf8'));
    return { status, headers, body, bodyProblem: undefined, bodyError: undefined };
  } catch (error) {
    return { status, headers, body: undefined, bodyProblem: 'not-json', bodyError: error };
  }
}
