import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Offering } from '../../src/contract/index.js';
import type { ApiClient, ApiResponse } from '../support/api-client.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import {
  activeCard,
  type ErrorReply,
  expectError,
  expectValidationFailure,
  holderFreeOffering,
} from '../support/wire-fixtures.js';

const MIB = 1024 * 1024;
const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** The twelve operations of the interface, as `METHOD path`. */
const INTERFACE_OPERATIONS = [
  'GET /cards',
  'POST /cards',
  'GET /cards/sensitive',
  'GET /cards/info',
  'POST /cards/freeze',
  'POST /cards/unfreeze',
  'POST /cards/cancel',
  'POST /cards/withdraw',
  'POST /cards/deposit',
  'GET /transactions',
  'GET /merchants/balance',
  'GET /merchants/offerings',
];

/** No trace of the service's insides in a body. */
function expectNoInternals(text: string): void {
  expect(text).not.toContain('    at ');
  expect(text).not.toMatch(/\bat .+:\d+:\d+/);
  expect(text).not.toContain('node_modules');
  expect(text).not.toMatch(/\.[jt]s:\d+/);
  expect(text).not.toMatch(/sqlite/i);
}

describe('transport and error answers', () => {
  let t: TestSandbox;
  let api: ApiClient;
  let offering: Offering;
  let cardId: string;

  beforeAll(async () => {
    t = await startTestSandbox();
    api = t.merchants[0] as ApiClient;
    offering = await holderFreeOffering(api);
    cardId = (await activeCard(api, t.control, offering)).cardId;
  });
  afterAll(async () => t.close());

  /** Counts that a refused request must leave as they were. */
  async function stateSnapshot() {
    const [balance, cards, transactions] = await Promise.all([
      api.get('/merchants/balance'),
      api.get('/cards'),
      api.get('/transactions'),
    ]);
    return { balance: balance.body, cards: cards.body, transactions: transactions.body };
  }

  describe('plain HTTP', () => {
    it('answers a plain http:// request on the HTTPS port with 403 HTTPS_REQUIRED', async () => {
      const port = new URL(t.sandbox.baseUrl).port;
      const key = t.sandbox.merchants[0]?.apiKey ?? '';
      const attempts = [
        { method: 'GET' as const, path: '/cards', headers: { 'x-api-key': key } },
        { method: 'GET' as const, path: '/merchants/balance', headers: {} },
        {
          method: 'POST' as const,
          path: '/cards',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ offeringId: offering.id, amount: '10.00', merchantOrderNo: 'p' }),
        },
      ];
      for (const attempt of attempts) {
        const response = await request(`http://localhost:${port}${attempt.path}`, {
          method: attempt.method,
          headers: attempt.headers,
          ...(attempt.body ? { body: attempt.body } : {}),
        });
        const text = await response.body.text();
        expect(response.statusCode).toBe(403);
        const body = JSON.parse(text) as ErrorReply;
        expect(body).toMatchObject({ statusCode: 403, code: 'HTTPS_REQUIRED' });
        expect(typeof body.message).toBe('string');
        expect(response.headers['x-sandbox-version']).toBe(PACKAGE_VERSION);
      }
    });

    it('takes no order sent over plain HTTP', async () => {
      const before = await stateSnapshot();
      const port = new URL(t.sandbox.baseUrl).port;
      const response = await request(`http://localhost:${port}/cards`, {
        method: 'POST',
        headers: {
          'x-api-key': t.sandbox.merchants[0]?.apiKey ?? '',
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          offeringId: offering.id,
          amount: offering.minLoadAmount,
          merchantOrderNo: orderNo('plain'),
        }),
      });
      await response.body.text();
      expect(response.statusCode).toBe(403);
      expect(await stateSnapshot()).toEqual(before);
    });
  });

  describe('x-sandbox-version', () => {
    it('is on every answer: success, order, refusals, unknown paths, the document, control', async () => {
      const answers: ApiResponse<unknown>[] = [
        await api.get('/cards'),
        await api.post('/cards', {
          offeringId: offering.id,
          amount: offering.minLoadAmount,
          merchantOrderNo: orderNo(),
        }),
        await api.get('/cards', { query: { page: '0' } }),
        await api.get('/cards', { key: null }),
        await api.get('/cards/info', { query: { cardId: 'card_nope' } }),
        await api.get('/nowhere'),
        await api.call('POST', '/cards', { rawBody: 'x', contentType: 'text/csv' }),
        await api.call('POST', '/cards', {
          rawBody: Buffer.alloc(MIB + 1, 32),
          contentType: 'application/json',
        }),
        await t.anonymous.get('/openapi.json'),
        await t.control.get('/_control/clock'),
      ];
      for (const answer of answers) {
        expect(answer.headers['x-sandbox-version'], `${answer.status} ${answer.text}`).toBe(
          PACKAGE_VERSION,
        );
      }
      expect(new Set(answers.map((a) => a.status))).toEqual(
        new Set([200, 201, 400, 401, 404, 413, 415]),
      );
    });
  });

  describe('body size', () => {
    it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE and takes nothing', async () => {
      const before = await stateSnapshot();
      const padding = 'a'.repeat(MIB);
      const body = JSON.stringify({
        offeringId: offering.id,
        amount: offering.minLoadAmount,
        merchantOrderNo: orderNo(),
        holderId: padding,
      });
      const response = await api.call('POST', '/cards', {
        rawBody: body,
        contentType: 'application/json',
      });
      expectError(response, 413, 'PAYLOAD_TOO_LARGE');
      expectNoInternals(response.text);
      expect(await stateSnapshot()).toEqual(before);
    });

    it('answers a chunked body that grows past 1 MiB with 413 as well', async () => {
      const chunk = Buffer.alloc(256 * 1024, 32);
      const response = await request(new URL('/cards/deposit', t.sandbox.baseUrl), {
        method: 'POST',
        dispatcher: t.agent,
        headers: {
          'x-api-key': t.sandbox.merchants[0]?.apiKey ?? '',
          'content-type': 'application/json',
        },
        body: Readable.from([chunk, chunk, chunk, chunk, Buffer.from('{}')]),
      });
      const text = await response.body.text();
      expect(response.statusCode).toBe(413);
      expect(JSON.parse(text)).toMatchObject({ statusCode: 413, code: 'PAYLOAD_TOO_LARGE' });
    });

    it('reads a body of exactly 1 MiB (refused by validation, not by size)', async () => {
      const head = `{"cardId":"${cardId}","merchantOrderNo":"m","pad":"`;
      const body = `${head}${'a'.repeat(MIB - head.length - 2)}"}`;
      expect(Buffer.byteLength(body)).toBe(MIB);
      const response = await api.call('POST', '/cards/freeze', {
        rawBody: body,
        contentType: 'application/json',
      });
      expectValidationFailure(response);
      expect(JSON.stringify(response.body)).toContain('pad');
    });
  });

  describe('content type', () => {
    it('answers a POST body that is not application/json with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
      const json = JSON.stringify({ cardId, merchantOrderNo: orderNo() });
      for (const contentType of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/x-www-form-urlencoded',
        'application/xml',
        'multipart/form-data; boundary=x',
        'text/csv',
      ]) {
        const response = await api.call('POST', '/cards/freeze', { rawBody: json, contentType });
        expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      }
      expect((await api.get('/cards/info', { query: { cardId } })).body.data.status).toBe('ACTIVE');
    });

    it('answers a POST body without any content type with 415', async () => {
      const response = await api.call('POST', '/cards/freeze', {
        rawBody: JSON.stringify({ cardId, merchantOrderNo: orderNo() }),
      });
      expectError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('accepts application/json with a charset parameter', async () => {
      const response = await api.call('POST', '/cards', {
        rawBody: JSON.stringify({
          offeringId: offering.id,
          amount: offering.minLoadAmount,
          merchantOrderNo: orderNo(),
        }),
        contentType: 'application/json; charset=utf-8',
      });
      expect(response.status, response.text).toBe(201);
    });
  });

  describe('body validation', () => {
    it('answers malformed JSON with 400 VALIDATION_FAILED and a message array', async () => {
      for (const rawBody of ['{', '{"cardId":}', "{'cardId':'x'}", '{"a":1,}', 'nul', '\u0000']) {
        const response = await api.call('POST', '/cards/freeze', {
          rawBody,
          contentType: 'application/json',
        });
        expectValidationFailure(response);
        expectNoInternals(response.text);
      }
    });

    it('answers JSON that is not an object, or an empty body, with 400', async () => {
      for (const rawBody of ['[]', '"text"', 'null', '42', 'true', '']) {
        const response = await api.call('POST', '/cards/deposit', {
          rawBody,
          contentType: 'application/json',
        });
        expectValidationFailure(response);
      }
    });

    it('answers an unknown body field with 400 naming it, and takes nothing', async () => {
      const before = await stateSnapshot();
      const response = await api.post('/cards', {
        offeringId: offering.id,
        amount: offering.minLoadAmount,
        merchantOrderNo: orderNo(),
        currency: 'USD',
      });
      expectValidationFailure(response);
      expect([(response.body as ErrorReply).message].flat().join(' ')).toContain('currency');
      const freeze = await api.post('/cards/freeze', {
        cardId,
        merchantOrderNo: orderNo(),
        reason: 'x',
      });
      expectValidationFailure(freeze);
      expect(await stateSnapshot()).toEqual(before);
    });

    it('answers missing required fields with 400 naming every one', async () => {
      const response = await api.post('/cards/withdraw', {});
      expectValidationFailure(response);
      const message = [(response.body as ErrorReply).message].flat().join(' ');
      for (const field of ['cardId', 'amount', 'merchantOrderNo']) expect(message).toContain(field);
    });

    it('refuses amounts and references sent as JSON numbers or booleans, not text', async () => {
      const before = await stateSnapshot();
      const bodies = [
        { offeringId: offering.id, amount: 10, merchantOrderNo: orderNo() },
        { offeringId: offering.id, amount: 10.5, merchantOrderNo: orderNo() },
        { offeringId: offering.id, amount: offering.minLoadAmount, merchantOrderNo: 12345 },
        { offeringId: offering.id, amount: offering.minLoadAmount, merchantOrderNo: true },
      ];
      for (const body of bodies) expectValidationFailure(await api.post('/cards', body));
      expectValidationFailure(
        await api.post('/cards/deposit', { cardId, amount: 5, merchantOrderNo: orderNo() }),
      );
      expect(await stateSnapshot()).toEqual(before);
    });

    it('refuses an unknown query parameter with 400 on operations that take none, and takes nothing', async () => {
      const before = await stateSnapshot();
      const query = { stauts: 'PENDING' };
      expectValidationFailure(await api.get('/merchants/balance', { query }));
      expectValidationFailure(await api.get('/merchants/offerings', { query }));
      const orders = [
        ['/cards', { offeringId: offering.id, amount: offering.minLoadAmount }],
        ['/cards/deposit', { cardId, amount: offering.minLoadAmount }],
        ['/cards/withdraw', { cardId, amount: '0.01' }],
        ['/cards/freeze', { cardId }],
      ] as const;
      for (const [path, body] of orders) {
        const response = await api.call('POST', path, {
          query,
          body: { ...body, merchantOrderNo: orderNo() },
        });
        expectValidationFailure(response);
      }
      expect(await stateSnapshot()).toEqual(before);
    });

    it('refuses signed, exponent, over-precise and non-numeric amount text with 400', async () => {
      for (const amount of ['-10.00', '+10.00', '1e3', '10.001', 'ten', '', ' 10', '10.']) {
        const response = await api.post('/cards/deposit', {
          cardId,
          amount,
          merchantOrderNo: orderNo(),
        });
        expectValidationFailure(response);
      }
    });
  });

  describe('no internals and no 500 for bad input', () => {
    it('answers a battery of bad requests with 4xx error bodies free of stack traces', async () => {
      const huge = '9'.repeat(400);
      const attempts: (() => Promise<ApiResponse<unknown>>)[] = [
        () => api.get('/cards', { query: { page: huge } }),
        () => api.get('/transactions', { query: { page: '1e400' } }),
        () => api.get('/transactions', { query: { startTime: '9999-99-99T99:99:99Z' } }),
        () => api.get('/transactions', { query: { startTime: '275760-09-13T00:00:00Z' } }),
        () => api.get('/transactions', { query: { cardId: 'x'.repeat(5000) } }),
        () => api.get('/cards/info', { query: { cardId: "' OR 1=1 --" } }),
        () => api.get('/cards/sensitive', { query: { cardId: '%00' } }),
        () =>
          api.post('/cards', {
            offeringId: 'off_nope',
            amount: '10.00',
            merchantOrderNo: orderNo(),
          }),
        () =>
          api.post('/cards', { offeringId: offering.id, amount: huge, merchantOrderNo: orderNo() }),
        () => api.post('/cards', { offeringId: offering.id, amount: '10', merchantOrderNo: 'a b' }),
        () =>
          api.post('/cards/deposit', {
            cardId,
            amount: '99999999999999.99',
            merchantOrderNo: orderNo(),
          }),
        () =>
          api.post('/cards/withdraw', { cardId, amount: '999999.00', merchantOrderNo: orderNo() }),
        () => api.post('/cards/freeze', { cardId: { $ne: null }, merchantOrderNo: orderNo() }),
        () => api.post('/cards/freeze', { cardId: [cardId], merchantOrderNo: orderNo() }),
        () => api.post('/cards/cancel', { cardId: null, merchantOrderNo: orderNo() }),
        () =>
          api.call('POST', '/cards/freeze', {
            rawBody: '{"__proto__":{"x":1}}',
            contentType: 'application/json',
          }),
        () =>
          api.call('POST', '/cards', {
            rawBody: `${'['.repeat(5000)}${']'.repeat(5000)}`,
            contentType: 'application/json',
          }),
      ];
      for (const attempt of attempts) {
        const response = await attempt();
        expect(response.status, response.text).toBeGreaterThanOrEqual(400);
        expect(response.status, response.text).toBeLessThan(500);
        const body = response.body as ErrorReply;
        expect(body.statusCode).toBe(response.status);
        expect(typeof body.code).toBe('string');
        expect(body.message).toBeDefined();
        expectNoInternals(response.text);
      }
    });
  });

  describe('GET /openapi.json', () => {
    it('is served without a key as an OpenAPI 3.1 document of the 12 operations on 11 paths', async () => {
      const response = await t.anonymous.get('/openapi.json');
      expect(response.status).toBe(200);
      const document = response.body as {
        openapi: string;
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      expect(document.openapi).toMatch(/^3\.1\.\d+$/);
      const paths = Object.keys(document.paths).sort();
      expect(paths).toEqual([...new Set(INTERFACE_OPERATIONS.map((o) => o.split(' ')[1]))].sort());
      expect(paths).toHaveLength(11);
      const methods = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
      const operations = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => methods.includes(m))
          .map((m) => `${m.toUpperCase()} ${path}`),
      );
      expect(operations.sort()).toEqual([...INTERFACE_OPERATIONS].sort());
      expect(Object.keys(document.paths['/cards'] ?? {}).sort()).toEqual(['get', 'post']);
    });

    it('declares the exact 401 and the x-api-key header on every operation', async () => {
      const document = (await t.anonymous.get('/openapi.json')).body as {
        components: { securitySchemes: Record<string, { type: string; in: string; name: string }> };
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      expect(Object.values(document.components.securitySchemes)).toContainEqual({
        type: 'apiKey',
        in: 'header',
        name: 'x-api-key',
      });
      for (const item of Object.values(document.paths)) {
        for (const operation of Object.values(item)) {
          expect(Object.keys(operation.responses)).toContain('401');
        }
      }
    });

    it('is the document the test client validates every answer against', async () => {
      const served = await t.anonymous.get('/openapi.json');
      expect(served.body).toEqual(JSON.parse(JSON.stringify(t.sandbox.openApiDocument())));
    });
  });
});
