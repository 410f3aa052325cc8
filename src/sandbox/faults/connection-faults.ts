import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * Abort the connection with a TCP reset, so the client sees ECONNRESET rather than a tidy close.
 * The HTTPS server wraps our TCP socket in a TLSSocket and keeps it as `_parent` (undocumented
 * but stable since Node 0.x); only the TCP socket can send a RST. Anything else is just closed.
 */
export function resetConnection(socket: Duplex): void {
  const tcp = (socket as { _parent?: unknown })._parent ?? socket;
  if (tcp instanceof Socket && typeof tcp.resetAndDestroy === 'function') tcp.resetAndDestroy();
  else socket.destroy();
}

/** Close the connection without a word: the client is left without its answer. */
export function dropConnection(socket: Duplex): void {
  socket.destroy();
}

/**
 * Send the response head with the full `content-length` and only the first half of the body,
 * then close the connection: the client holds a body cut off mid-JSON. The bytes go straight to
 * the socket, and it is closed before the HTTP layer writes its own copy, which is then dropped.
 */
export async function sendTruncated(
  socket: Duplex,
  statusCode: number,
  headers: Record<string, number | string | string[] | undefined>,
  payload: string | Buffer,
): Promise<void> {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const lines = [`HTTP/1.1 ${statusCode} ${STATUS_CODES[statusCode] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name.toLowerCase() === 'content-length') continue;
    for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
  }
  lines.push(`content-length: ${body.length}`, '', '');
  const head = Buffer.from(lines.join('\r\n'));
  const cut = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
  // Wait until the bytes are handed to the kernel: closing earlier could discard them.
  await new Promise<void>((resolve) => socket.write(Buffer.concat([head, cut]), () => resolve()));
  socket.destroy();
}
