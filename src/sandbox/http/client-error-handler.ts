import type { Socket } from 'node:net';
import type { ErrorCode } from '../../contract/index.js';
import { VERSION } from '../../version.js';
import type { ServiceClock } from '../clock.js';
import { errorBody } from './api-error.js';

/** How long a refused connection may linger for its answer to be read before it is destroyed. */
const LINGER_MS = 2_000;

/** What Node's HTTP parser reports, and the answer each gets. */
function refusal(error: NodeJS.ErrnoException): { code: ErrorCode; message: string[] } {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { code: 'HEADERS_TOO_LARGE', message: ['request line and headers exceed 16 KiB'] };
  }
  if (error.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    // Node's own answer is a 413: the body, not the head, is what grew too large.
    return { code: 'PAYLOAD_TOO_LARGE', message: ['chunk extensions exceed 16 KiB'] };
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 'REQUEST_TIMEOUT', message: ['the request did not arrive in time'] };
  }
  return { code: 'VALIDATION_FAILED', message: ['malformed HTTP request'] };
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses (a malformed header line, an
 * unknown method token, both Content-Length and Transfer-Encoding, headers over the limit) never
 * reaches a route or hook, and Fastify's default answers it with a body of its own, without a
 * `code`, or (431) loses it by destroying the socket while the client is still sending. This
 * answers with the error envelope and the headers of every answer, then closes the connection
 * once the answer is written: the parser cannot tell where the next request would start.
 */
export function clientErrorHandler(clock: ServiceClock) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // An answer to an earlier request already under way on this socket must not be corrupted.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const { code, message } = refusal(error);
    const envelope = errorBody(code, message);
    const body = JSON.stringify(envelope);
    const head = [
      `HTTP/1.1 ${envelope.statusCode} ${envelope.error}`,
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-sandbox-version: ${VERSION}`,
      `date: ${new Date(clock.now()).toUTCString()}`,
      'connection: close',
    ].join('\r\n');
    // end, not destroy: destroying while the client still sends (a header overflow) resets the
    // connection, and the client's stack discards the answer it has not read yet.
    socket.end(`${head}\r\n\r\n${body}`);
    socket.setTimeout(LINGER_MS, () => socket.destroy());
  };
}
