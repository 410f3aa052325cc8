import { readFileSync } from 'node:fs';
import { STATUS_CODES } from 'node:http';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { activeCard, advanceClock, holderFreeOffering } from '../support/wire-fixtures.js';

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const DAY = 24 * 60 * 60 * 1000;

/** An answer read off the socket: what a client below any HTTP library would see. */
interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Send `text` as is over TLS and read the answer until the server closes the connection. Node's
 * HTTP parser refuses these requests before Fastify routes them, so no HTTP client would send
 * them; a real one on the network might.
 */
function rawRequest(t: TestSandbox, text: string): Promise<RawAnswer> {
  const { port } = new URL(t.sandbox.baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: 'localhost', port: Number(port), ca: t.sandbox.caPem }, () =>
      socket.write(text),
    );
    // A reset after the answer was read is the server closing an unfinished request; before
    // it, the answer was lost, which the status check below reports.
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer, only ${JSON.stringify(raw)}`));
      const [statusLine = '', ...lines] = raw.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: raw.slice(split + 4),
      });
    });
  });
}

/** Exactly the error envelope of reference-model section 1, with the version header. */
function expectEnvelope(
  answer: { status: number; headers: Record<string, unknown>; text: string },
  status: number,
  code: string,
): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers['x-sandbox-version'], answer.text).toBe(PACKAGE_VERSION);
  expect(String(answer.headers['content-type'])).toMatch(/^application\/json/);
  const body = JSON.parse(answer.text) as Record<string, unknown>;
  expect(Object.keys(body).sort(), answer.text).toEqual(['code', 'error', 'message', 'statusCode']);
  expect(body).toMatchObject({ statusCode: status, error: STATUS_CODES[status], code });
  const message = body.message;
  expect(typeof message === 'string' || Array.isArray(message), answer.text).toBe(true);
}

function fromRaw(answer: RawAnswer) {
  return { status: answer.status, headers: answer.headers, text: answer.body };
}

describe('HTTP edges', () => {
  let t: TestSandbox;
  let api: ApiClient;
  let key: string;

  beforeAll(async () => {
    t = await startTestSandbox();
    api = t.merchants[0] as ApiClient;
    key = t.sandbox.merchants[0]?.apiKey ?? '';
  });
  afterAll(async () => t.close());

  describe('requests refused before routing', () => {
    it('answers a malformed header line with the 400 envelope, not the framework default', async () => {
      const answer = await rawRequest(
        t,
        `GET /cards HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\nnot a header\r\n\r\n`,
      );
      expectEnvelope(fromRaw(answer), 400, 'VALIDATION_FAILED');
    });

    it('answers a space before the colon of x-api-key (RFC 9112 5.1) with the 400 envelope', async () => {
      const answer = await rawRequest(
        t,
        `GET /cards HTTP/1.1\r\nHost: localhost\r\nx-api-key : ${key}\r\n\r\n`,
      );
      expectEnvelope(fromRaw(answer), 400, 'VALIDATION_FAILED');
    });

    it('answers both Content-Length and Transfer-Encoding on an order with the 400 envelope', async () => {
      const answer = await rawRequest(
        t,
        `POST /cards/freeze HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      );
      expectEnvelope(fromRaw(answer), 400, 'VALIDATION_FAILED');
    });

    it('answers a method token the parser does not know with the 400 envelope', async () => {
      const answer = await rawRequest(
        t,
        `BREW /cards HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\n\r\n`,
      );
      expectEnvelope(fromRaw(answer), 400, 'VALIDATION_FAILED');
    });

    it('answers headers over the size limit with 431 HEADERS_TOO_LARGE, delivered before closing', async () => {
      const answer = await rawRequest(
        t,
        `GET /cards HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\nx-pad: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      expectEnvelope(fromRaw(answer), 431, 'HEADERS_TOO_LARGE');
    });

    it('answers chunk extensions over the limit with 413 PAYLOAD_TOO_LARGE, as Node would', async () => {
      const answer = await rawRequest(
        t,
        `POST /cards/freeze HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\n` +
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
          `2;ext=${'a'.repeat(20_000)}\r\n{}\r\n0\r\n\r\n`,
      );
      expectEnvelope(fromRaw(answer), 413, 'PAYLOAD_TOO_LARGE');
    });

    it('answers a path with broken percent-encoding with the 400 envelope and the version header', async () => {
      for (const path of ['/cards/%zz', '/%', '/cards%']) {
        const response = await api.get(path);
        expectEnvelope(response, 400, 'VALIDATION_FAILED');
        expect(response.headers['server-timing']).toMatch(/^app;dur=/);
      }
    });

    it('dates that answer by the service clock, like every other', async () => {
      const before = Date.parse(String((await api.get('/merchants/balance')).headers.date));
      await advanceClock(t.control, 10 * DAY);
      const answer = await api.get('/cards/%zz');
      expect(Date.parse(String(answer.headers.date)) - before).toBeGreaterThanOrEqual(9 * DAY);
    });

    it('answers an HTTP/1.1 request without Host (RFC 9112 3.2) with the 400 envelope', async () => {
      const answer = await rawRequest(
        t,
        `GET /cards HTTP/1.1\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`,
      );
      expectEnvelope(fromRaw(answer), 400, 'VALIDATION_FAILED');
    });

    it('still serves an HTTP/1.0 request without Host, which needs none', async () => {
      const answer = await rawRequest(
        t,
        `GET /merchants/balance HTTP/1.0\r\nx-api-key: ${key}\r\n\r\n`,
      );
      expect(answer.status, answer.body).toBe(200);
      expect(JSON.parse(answer.body)).toHaveProperty('data.currency');
    });

    it('keeps the connection usable after a refused request: the next one on it is served', async () => {
      const answer = await rawRequest(
        t,
        `GET /cards/%zz HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\n\r\n` +
          `GET /merchants/balance HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.status).toBe(400);
      expect(answer.body).toContain('"currency"');
    });
  });

  describe('every refusal has exactly the envelope of reference-model section 1', () => {
    it('holds for paging, time filters, ids, routes, methods, media types and sizes', async () => {
      const offering = await holderFreeOffering(api);
      const { cardId } = await activeCard(api, t.control, offering);
      const other = t.merchants[1] as ApiClient;
      const json = 'application/json';
      const cases: [() => Promise<ApiResponse>, number, string][] = [
        [() => api.get('/cards', { query: { page: '0' } }), 400, 'VALIDATION_FAILED'],
        [() => api.get('/transactions', { query: { limit: '-1' } }), 400, 'VALIDATION_FAILED'],
        [() => api.get('/cards?page=1&page=2'), 400, 'VALIDATION_FAILED'],
        [() => api.get('/transactions?limit=2.5'), 400, 'VALIDATION_FAILED'],
        [
          () =>
            api.get('/transactions', {
              query: { startTime: '2026-02-01T00:00:00Z', endTime: '2026-01-01T00:00:00Z' },
            }),
          400,
          'VALIDATION_FAILED',
        ],
        [
          () => api.get('/transactions', { query: { startTime: '2026-01-01T00:00:00' } }),
          400,
          'VALIDATION_FAILED',
        ],
        [() => other.get('/cards/info', { query: { cardId } }), 404, 'CARD_NOT_FOUND'],
        [() => other.get('/cards/sensitive', { query: { cardId } }), 404, 'CARD_NOT_FOUND'],
        [
          () => other.post('/cards/freeze', { cardId, merchantOrderNo: orderNo() }),
          404,
          'CARD_NOT_FOUND',
        ],
        [() => api.get('/nowhere'), 404, 'NOT_FOUND'],
        [() => api.get('/cards/'), 404, 'NOT_FOUND'],
        [() => api.get('/cards//info', { query: { cardId: 'x' } }), 404, 'NOT_FOUND'],
        [() => api.call('DELETE', '/cards'), 404, 'NOT_FOUND'],
        [() => api.get('/cards/freeze'), 404, 'NOT_FOUND'],
        [() => api.call('POST', '/cards/freeze', { rawBody: '{}' }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
        [
          () => api.call('POST', '/cards/freeze', { rawBody: '{', contentType: json }),
          400,
          'VALIDATION_FAILED',
        ],
        [
          () => api.call('POST', '/cards/freeze', { rawBody: '', contentType: json }),
          400,
          'VALIDATION_FAILED',
        ],
        [
          () =>
            api.call('POST', '/cards/freeze', {
              rawBody: Buffer.alloc(1024 * 1024 + 1, 32),
              contentType: json,
            }),
          413,
          'PAYLOAD_TOO_LARGE',
        ],
      ];
      for (const [call, status, code] of cases) expectEnvelope(await call(), status, code);
    });

    it("holds for the 401 too, which is exactly the interface's two fields", async () => {
      for (const response of [
        await api.get('/cards', { key: null }),
        await api.get('/cards', { key: '' }),
        await api.get('/cards', { key: `${key}x` }),
        await api.call('DELETE', '/nowhere', { key: null }),
      ]) {
        expect(response.status).toBe(401);
        expect(response.headers['x-sandbox-version']).toBe(PACKAGE_VERSION);
        expect(JSON.parse(response.text)).toStrictEqual({
          statusCode: 401,
          message: 'Unauthorized',
        });
      }
    });
  });

  describe('with a rate limit', () => {
    let limited: TestSandbox;
    beforeAll(async () => {
      limited = await startTestSandbox({ rateLimitPerSecond: 1 });
    });
    afterAll(async () => limited.close());

    it('answers 429 with exactly the envelope and Retry-After', async () => {
      const client = limited.merchants[0] as ApiClient;
      let answer: ApiResponse | undefined;
      for (let i = 0; i < 5 && answer?.status !== 429; i++) answer = await client.get('/cards');
      expectEnvelope(answer as ApiResponse, 429, 'RATE_LIMITED');
      expect(Number((answer as ApiResponse).headers['retry-after'])).toBeGreaterThan(0);
    });
  });
});
