import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { type Dispatcher, errors, request } from 'undici';
import { decodeContent, isTooLarge, UnknownContentCodingError } from './content-coding.js';

/** One HTTP request as the client sends it. */
export interface OutgoingRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  readonly signal: AbortSignal | undefined;
  readonly headersTimeoutMs: number;
  /** Longest silence between two chunks of the body. */
  readonly bodyTimeoutMs: number;
  /** Longest time for the whole body, however steadily it trickles in. */
  readonly bodyTotalMs: number;
  /** Most bytes of body read, before and after undoing its content coding. */
  readonly maxBodyBytes: number;
}

/**
 * Why a response body could not be used: it ended early, is not JSON, came in a content coding
 * the client does not read, or in one it reads but that does not decode, or is over the cap.
 */
export type BodyProblem = 'cut-short' | 'not-json' | 'unknown-coding' | 'bad-coding' | 'too-large';

/** A response whose head arrived and whose body was read whole (or ended early), not parsed. */
export interface ReceivedBody {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The body's bytes, content codings undone; undefined when `problem` says why not. */
  readonly bytes: Buffer | undefined;
  /** The error that ended the body early (socket closed, body timeout), kept as a cause. */
  readonly bodyError: unknown;
  readonly problem?: Exclude<BodyProblem, 'not-json'> | undefined;
}

/** A response whose head arrived; the body read whole, then parsed. */
export interface ReceivedResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The parsed JSON, or undefined with `bodyProblem` set. */
  readonly body: unknown;
  /**
   * The body's text that `body` was parsed from, kept (not copied) so that a record refused
   * can be read again from it as written (src/contract/exact-json.ts); undefined without a body.
   */
  readonly text: string | undefined;
  readonly bodyProblem: BodyProblem | undefined;
  /** The error that ended the body early (socket closed, body timeout), kept as a cause. */
  readonly bodyError: unknown;
  /** The body was not UTF-8 throughout: each bad byte sequence was read as U+FFFD. */
  readonly lossy: boolean;
  /**
   * The body escapes a UTF-16 surrogate (`\uD800` to `\uDFFF`): a string of it may hold one
   * without its pair, which is no Unicode text (see response-validator.ts).
   */
  readonly surrogateEscapes: boolean;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The stream's bytes, or undefined once they pass `maxBytes` (the stream is then destroyed, so
 * the rest is never read): a body is held whole before it is parsed, and a page has no business
 * being hundreds of megabytes.
 */
async function readAtMost(body: Readable, maxBytes: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body) {
    length += (chunk as Buffer).length;
    if (length > maxBytes) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, length);
}

/**
 * Send one request and read its body whole, its content codings undone (see
 * {@link decodeContent}). A body that ends early (a socket error mid-body, or
 * fewer bytes than `content-length` promised) comes back without bytes rather than thrown, so
 * the caller still sees the status. Parsing is left to {@link parseBody}: the request is over
 * once its bytes are in, and the caller may hand its slot on before the CPU work starts.
 * @throws the dispatcher's error when no response head arrived (reset, refused, timeout, TLS).
 */
export async function sendRequest(
  dispatcher: Dispatcher,
  outgoing: OutgoingRequest,
): Promise<ReceivedBody> {
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
  // undici's bodyTimeout only bounds the silence between chunks: a byte every few seconds would
  // hold the request (and its slot) for hours. The body ends as timed out at this deadline.
  const deadline = setTimeout(
    () => response.body.destroy(new errors.BodyTimeoutError()),
    outgoing.bodyTotalMs,
  );
  const promised = Number(header(headers, 'content-length'));
  const tooLarge = { status, headers, bytes: undefined, bodyError: undefined } as const;
  let bytes: Buffer | undefined;
  try {
    if (promised > outgoing.maxBodyBytes) {
      response.body.destroy();
      return { ...tooLarge, problem: 'too-large' };
    }
    bytes = await readAtMost(response.body, outgoing.maxBodyBytes);
  } catch (error) {
    return { status, headers, bytes: undefined, bodyError: error, problem: 'cut-short' };
  } finally {
    clearTimeout(deadline);
  }
  if (bytes === undefined) return { ...tooLarge, problem: 'too-large' };
  if (Number.isInteger(promised) && bytes.length < promised) {
    return { status, headers, bytes: undefined, bodyError: undefined, problem: 'cut-short' };
  }
  try {
    const coding = header(headers, 'content-encoding');
    const decoded = await decodeContent(bytes, coding, outgoing.maxBodyBytes);
    return { status, headers, bytes: decoded, bodyError: undefined };
  } catch (error) {
    const problem =
      error instanceof UnknownContentCodingError
        ? 'unknown-coding'
        : isTooLarge(error)
          ? 'too-large'
          : 'bad-coding';
    return { status, headers, bytes: undefined, bodyError: error, problem };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const UTF8_LOSSY = new TextDecoder('utf-8');

/**
 * The body as text: a leading byte order mark dropped (RFC 8259 lets a parser ignore it), and
 * bytes that are not UTF-8 read as U+FFFD, flagged `lossy` so the records holding them can be
 * refused rather than mirrored altered, and the rest of the page kept.
 */
function decode(bytes: Buffer): { text: string; lossy: boolean } {
  try {
    return { text: UTF8.decode(bytes), lossy: false };
  } catch {
    return { text: UTF8_LOSSY.decode(bytes), lossy: true };
  }
}

/** An escape of a UTF-16 surrogate in JSON text (it may stand for half a pair, or alone). */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/** True when JSON `text` escapes a surrogate; the expression runs only on one holding a `\u`. */
function escapesSurrogate(text: string): boolean {
  return text.includes('\\u') && SURROGATE_ESCAPE.test(text);
}

/** The JSON of a received body; a body that does not parse is a `not-json` body problem. */
export function parseBody(received: ReceivedBody): ReceivedResponse {
  const { status, headers, bytes, bodyError, problem } = received;
  if (bytes === undefined) {
    const bodyProblem = problem ?? 'cut-short';
    const flags = { lossy: false, surrogateEscapes: false };
    return { status, headers, body: undefined, text: undefined, bodyProblem, bodyError, ...flags };
  }
  const { text, lossy } = decode(bytes);
  const flags = { lossy, surrogateEscapes: escapesSurrogate(text) };
  try {
    const body: unknown = JSON.parse(text);
    const parsed = { body, text, bodyProblem: undefined, bodyError: undefined };
    return { status, headers, ...parsed, ...flags };
  } catch (error) {
    const bodyProblem = 'not-json';
    return { status, headers, body: undefined, text, bodyProblem, bodyError: error, ...flags };
  }
}
