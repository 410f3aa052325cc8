import { execFileSync } from 'node:child_process';
import { Ajv } from 'ajv';
import type { TSchema } from 'typebox';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CardIssuingClient,
  MalformedRecordError,
  ResponseValidator,
  UpstreamError,
} from '../../src/api/index.js';
import { type OperationId, ROUTES, type Transaction } from '../../src/contract/index.js';
import { recordingSleep, silentLogger } from './client-fixtures.js';

function transaction(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    transactionId: id,
    cardId: 'card_1',
    tradeNo: 'trd_1',
    type: 'PURCHASE',
    status: 'COMPLETED',
    amount: '12.50',
    currency: 'USD',
    merchantName: 'Corner Shop',
    fee: '0.00',
    createdAt: '2026-11-21T02:00:00.000Z',
    ...overrides,
  };
}

const pagination = { total: 3, page: 1, limit: 20, totalPages: 1 };

describe('ResponseValidator', () => {
  it("compiles every operation's response schema, each a valid JSON Schema (the client skips that check)", () => {
    const v = new ResponseValidator();
    const metaCheck = new Ajv({ strict: false });
    const routes = Object.entries(ROUTES) as [
      OperationId,
      { response: TSchema & { properties?: Record<string, unknown> } },
    ][];
    expect(routes).toHaveLength(12);
    for (const [operation, route] of routes) {
      expect(metaCheck.validateSchema(route.response), operation).toBe(true);
      const properties = route.response.properties ?? {};
      const data = properties.data as { type?: string } | undefined;
      const body = { data: 'not a record' };
      const context = { attempts: 1 };
      const checked =
        'pagination' in properties
          ? v.page(operation, body, context)
          : data?.type === 'array'
            ? v.list(operation, body, context)
            : v.single(operation, body, context);
      expect(checked.ok, operation).toBe(false);
    }
  });

  const validator = new ResponseValidator();

  it('keeps the valid records of a page and turns the bad one into a MalformedRecordError with its raw value', () => {
    const bad = transaction('txn_2', { amount: 12.5 });
    const body = { data: [transaction('txn_1'), bad, transaction('txn_3')], pagination };
    const checked = validator.page<Transaction>('listTransactions', body, {
      attempts: 1,
      status: 200,
    });
    if (!checked.ok) throw new Error(checked.reason);
    expect(checked.value.records.map((r) => r.transactionId)).toEqual(['txn_1', 'txn_3']);
    expect(checked.value.pagination).toEqual(pagination);
    expect(checked.value.rejected).toHaveLength(1);
    const [rejected] = checked.value.rejected;
    expect(rejected).toBeInstanceOf(MalformedRecordError);
    expect(rejected).toBeInstanceOf(UpstreamError);
    expect(rejected).toMatchObject({
      code: 'UPSTREAM_MALFORMED_RECORD',
      operation: 'listTransactions',
      recordId: 'txn_2',
      reason: '/amount must be string',
      status: 200,
      attempts: 1,
    });
    expect(rejected?.raw).toBe(bad);
  });

  it("takes any ISO 8601 UTC createdAt and writes it the mirror's way; refuses no real instant", () => {
    const v = new ResponseValidator();
    const written = {
      t1: '2026-11-21T02:00:00Z',
      t2: '2026-11-21T02:00:00.1234567Z',
      t3: '2026-11-21T02:00:00.5+00:00',
      t4: '2026-11-21T02:00:00.000-0000',
      t5: '2026-11-21T02:00:00.000Z',
      bad1: '2026-02-30T02:00:00Z',
      bad2: '2026-11-21T24:00:00Z',
      bad3: '2026-11-21T02:00:00+01:00',
    };
    const body = {
      data: Object.entries(written).map(([id, createdAt]) => transaction(id, { createdAt })),
      pagination: { ...pagination, total: 8 },
    };
    const page = v.page<Transaction>('listTransactions', body, { attempts: 1 });
    if (!page.ok) throw new Error(page.reason);
    expect(page.value.records.map((r) => [r.transactionId, r.createdAt])).toEqual([
      ['t1', '2026-11-21T02:00:00.000Z'],
      ['t2', '2026-11-21T02:00:00.123Z'],
      ['t3', '2026-11-21T02:00:00.500Z'],
      ['t4', '2026-11-21T02:00:00.000Z'],
      ['t5', '2026-11-21T02:00:00.000Z'],
    ]);
    expect(page.value.rejected.map((e) => [e.recordId, e.reason])).toEqual([
      ['bad1', '/createdAt is not a real instant'],
      ['bad2', '/createdAt is not a real instant'],
      ['bad3', expect.stringMatching(/^\/createdAt must match pattern/)],
    ]);
    // The raw record of a refusal is kept exactly as it came.
    expect(page.value.rejected[0]?.raw).toMatchObject({ createdAt: '2026-02-30T02:00:00Z' });
  });

  it("refuses no real instant written the mirror's way too (2026-02-30, 24:00, a leap second), as it refuses it written any other way, instead of mirroring it unchecked", () => {
    const v = new ResponseValidator();
    const written = {
      feb30: '2026-02-30T02:00:00.000Z',
      apr31: '2026-04-31T02:00:00.000Z',
      hour24: '2026-11-21T24:00:00.000Z',
      minute60: '2026-11-21T02:60:00.000Z',
      leap: '2026-12-31T23:59:60.000Z',
      leapDay: '2028-02-29T02:00:00.000Z',
    };
    const body = {
      data: Object.entries(written).map(([id, createdAt]) => transaction(id, { createdAt })),
      pagination: { ...pagination, total: 6 },
    };
    const page = v.page<Transaction>('listTransactions', body, { attempts: 1 });
    if (!page.ok) throw new Error(page.reason);
    expect(page.value.records.map((r) => [r.transactionId, r.createdAt])).toEqual([
      ['leapDay', '2028-02-29T02:00:00.000Z'],
    ]);
    expect(page.value.rejected.map((e) => [e.recordId, e.reason])).toEqual(
      ['feb30', 'apr31', 'hour24', 'minute60', 'leap'].map((id) => [
        id,
        '/createdAt is not a real instant',
      ]),
    );
  });

  it('explains every problem of a record and names the allowed values of an enum', () => {
    const body = {
      data: [
        transaction('txn_9', { status: 'LOST', createdAt: '2026-11-21', merchantName: undefined }),
      ],
      pagination,
    };
    const checked = validator.page('listTransactions', body, { attempts: 2 });
    if (!checked.ok) throw new Error(checked.reason);
    const reason = checked.value.rejected[0]?.reason ?? '';
    expect(reason).toContain("must have required property 'merchantName'");
    expect(reason).toContain('/status must be one of PENDING, COMPLETED, DECLINED, SETTLED');
    expect(reason).toContain('/createdAt must match pattern');
  });

  it('refuses a broken envelope as a whole: data not an array, pagination missing or wrong', () => {
    expect(validator.page('listCards', { data: {}, pagination }, { attempts: 1 }).ok).toBe(false);
    expect(validator.page('listCards', { data: [] }, { attempts: 1 }).ok).toBe(false);
    const wrong = validator.page(
      'listCards',
      { data: [], pagination: { ...pagination, page: '1' } },
      { attempts: 1 },
    );
    expect(wrong).toEqual({
      ok: false,
      reason: expect.stringContaining('/pagination/page must be integer'),
    });
    expect(validator.list('listOfferings', [], { attempts: 1 }).ok).toBe(false);
    expect(validator.single('getCard', { data: [] }, { attempts: 1 }).ok).toBe(false);
  });

  it('accepts extra fields (a newer upstream) and returns a bad single record as MalformedRecordError', () => {
    const ok = validator.single(
      'getMerchantBalance',
      { data: { balance: '1.00', currency: 'USD', extra: 1 } },
      { attempts: 1 },
    );
    expect(ok).toEqual({ ok: true, value: { balance: '1.00', currency: 'USD', extra: 1 } });
    const bad = validator.single(
      'getCard',
      { data: { cardId: 'card_7', balance: 3 } },
      { attempts: 1 },
    );
    if (!bad.ok) throw new Error(bad.reason);
    expect(bad.value).toBeInstanceOf(MalformedRecordError);
    expect(bad.value).toMatchObject({ recordId: 'card_7' });
  });
});

// The sandbox never corrupts a record nor answers an unusual 2xx, so these cases go through a
// MockAgent; everything else is tested against the real sandbox.
describe('CardIssuingClient with a record the contract refuses (MockAgent)', () => {
  const agents: MockAgent[] = [];
  afterEach(async () => {
    for (const agent of agents.splice(0)) await agent.close();
  });

  function mockedClient(): { client: CardIssuingClient; pool: ReturnType<MockAgent['get']> } {
    const agent = new MockAgent();
    agent.disableNetConnect();
    agents.push(agent);
    const client = new CardIssuingClient({
      baseUrl: 'https://upstream.test/v1',
      apiKey: 'k',
      dispatcher: agent,
      sleep: recordingSleep().sleep,
      logger: silentLogger,
    });
    return { client, pool: agent.get('https://upstream.test') };
  }

  it('returns the good records and the bad one in rejected, and goes on', async () => {
    const { client, pool } = mockedClient();
    const body = {
      data: [transaction('txn_1'), transaction('txn_2', { amount: 12.5 })],
      pagination,
    };
    pool
      .intercept({ path: '/v1/transactions?cardId=card_1&page=2', method: 'GET' })
      .reply(200, body, {
        headers: { 'content-type': 'application/json', 'x-request-id': 'req-42' },
      });
    const page = await client.listTransactions({ cardId: 'card_1', page: 2, type: undefined });
    expect(page.records.map((r) => r.transactionId)).toEqual(['txn_1']);
    expect(page.rejected).toHaveLength(1);
    expect(page.rejected[0]).toMatchObject({
      recordId: 'txn_2',
      requestId: 'req-42',
      raw: body.data[1],
    });
  });

  it('retries a page whose envelope is garbled, then throws UPSTREAM_MALFORMED_RESPONSE after 3 attempts', async () => {
    const { client, pool } = mockedClient();
    pool.intercept({ path: '/v1/cards', method: 'GET' }).reply(200, { data: 'nope' }).times(5);
    const error = await client.listCards().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'UPSTREAM_MALFORMED_RESPONSE', attempts: 3, status: 200 });
  });

  it('throws a single record that breaks the contract as a MalformedRecordError, without retrying', async () => {
    const { client, pool } = mockedClient();
    const raw = { cardId: 'card_5', status: 'ACTIVE', balance: 10 };
    pool
      .intercept({ path: '/v1/cards/info?cardId=card_5', method: 'GET' })
      .reply(200, { data: raw });
    const error = await client.getCard('card_5').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MalformedRecordError);
    expect(error).toMatchObject({
      code: 'UPSTREAM_MALFORMED_RECORD',
      recordId: 'card_5',
      raw,
      attempts: 1,
    });
  });

  it('takes a 204 without a body to an order as accepted after one attempt, with no orderNo', async () => {
    const { client, pool } = mockedClient();
    pool.intercept({ path: '/v1/cards/freeze', method: 'POST' }).reply(204, '').times(6);
    await expect(client.freezeCard({ cardId: 'card_1', merchantOrderNo: 'm-1' })).resolves.toEqual({
      orderNo: undefined,
      merchantOrderNo: 'm-1',
      replayed: false,
      status: 204,
    });
    expect(client.stats().requests).toBe(1);
  });

  it('still refuses a read answered 2xx without a body', async () => {
    const { client, pool } = mockedClient();
    pool.intercept({ path: '/v1/merchants/balance', method: 'GET' }).reply(204, '').times(6);
    await expect(client.getMerchantBalance()).rejects.toMatchObject({
      code: 'UPSTREAM_MALFORMED_RESPONSE',
      status: 204,
    });
  });

  it('takes any 2xx as success, not only the documented 201', async () => {
    const { client, pool } = mockedClient();
    pool
      .intercept({ path: '/v1/cards/freeze', method: 'POST' })
      .reply(202, { data: { orderNo: 'ord_1', merchantOrderNo: 'm-1' } });
    await expect(client.freezeCard({ cardId: 'card_1', merchantOrderNo: 'm-1' })).resolves.toEqual({
      orderNo: 'ord_1',
      merchantOrderNo: 'm-1',
      replayed: false,
      status: 202,
    });
  });
});

describe('when Ajv loads', () => {
  const CLIENT = new URL('../../dist/api/card-issuing-client.js', import.meta.url).href;

  /** Whether a fresh process that ran `steps` (with `client` built) had loaded Ajv. */
  function ajvLoadedAfter(steps: string): boolean {
    const script = `
      import { createRequire } from 'node:module';
      const { CardIssuingClient } = await import(${JSON.stringify(CLIENT)});
      const client = new CardIssuingClient({ baseUrl: 'https://localhost:9', apiKey: 'k', concurrency: 1 });
      ${steps}
      await client.close();
      const cache = Object.keys(createRequire(import.meta.url).cache);
      process.stdout.write(JSON.stringify(cache.some((path) => path.includes('/node_modules/ajv/'))));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    return JSON.parse(out) as boolean;
  }

  // Ajv takes about 20 ms to load: with the client, it delayed the sync's first request; it is
  // loaded while that request is on the wire instead (or at the first answer to validate).
  it('is not loaded with the client, before any request', () => {
    expect(ajvLoadedAfter('')).toBe(false);
  });

  it('is loaded once a response is validated', () => {
    expect(
      ajvLoadedAfter(`
        const { ResponseValidator } = await import(${JSON.stringify(
          new URL('../../dist/api/response-validator.js', import.meta.url).href,
        )});
        new ResponseValidator().list('listOfferings', { data: [] }, { attempts: 1 });`),
    ).toBe(true);
  });
});
