import { STATUS_CODES } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { createServer, type Server, type Socket } from 'node:net';

/** The first byte of every TLS connection: a handshake record. */
const TLS_HANDSHAKE = 0x16;

/**
 * One port for both protocols: TLS connections go to the HTTPS server, and anything else gets a
 * plain-HTTP `403 HTTPS_REQUIRED` (reference-model section 1) instead of a TLS alert, so a client
 * that forgot the `s` is told so in words.
 */
export function createDualListener(https: HttpsServer, version: string): Server {
  return createServer({ pauseOnConnect: true }, (socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.once('data', (first: Buffer) => {
      // Put the byte back so the HTTPS server sees the whole handshake.
      socket.pause();
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) https.emit('connection', socket);
      else refusePlainHttp(socket, version);
    });
    socket.resume();
  });
}

function refusePlainHttp(socket: Socket, version: string): void {
  const body = JSON.stringify({
    statusCode: 403,
    error: STATUS_CODES[403],
    code: 'HTTPS_REQUIRED',
    message: 'plain HTTP is refused; use https://',
  });
  socket.end(
    [
      'HTTP/1.1 403 Forbidden',
      'content-type: application/json; charset=utf-8',
      `content-length: ${Buffer.byteLength(body)}`,
      `x-sandbox-version: ${version}`,
      'connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}
