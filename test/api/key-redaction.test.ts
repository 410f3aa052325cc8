import { inspect } from 'node:util';
import { pino } from 'pino';
import { MockAgent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient, UpstreamError } from '../../src/api/index.js';
import { orderNo, startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { capturedLog, sandboxClient, setFaults } from './client-fixtures.js';

/** Every way an error is likely to be written out: JSON, pino's serializer, inspect, the stack. */
function serialisations(error: unknown): string[] {
  const chain: unknown[] = [];
  for (let e: unknown = error; e instanceof Error; e = e.cause) chain.push(e);
  return [
    JSON.stringify(error),
    JSON.stringify(pino.stdSerializers.err(error as Error)),
    inspect(error, { depth: 10 }),
    ...chain.map((e) => `${(e as Error).message}\n${(e as Error).stack}`),
  ];
}

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('CardIssuingClient: the API key never leaks', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-key-redaction' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('appears in no thrown error, no cause, and no log line at debug', async () => {
    const key = t.sandbox.merchants[0]?.apiKey ?? '';
    expect(key.length).toBeGreaterThan(8);
    const log = capturedLog();
    const { client } = sandboxClient(t, { logger: log.logger, retry: { maxAttempts: 2 } });
    const errors: UpstreamError[] = [];
    try {
      setFaults(t, [{ kind: 'rate-limit', retryAfterSeconds: 1, times: 1 }]);
      await client.getMerchantBalance();
      setFaults(t, [{ kind: 'rate-limit' }]);
      errors.push(await failure(client.listCards()));
      setFaults(t, [{ kind: 'server-error', status: 500 }]);
      errors.push(await failure(client.listTransactions()));
      setFaults(t, [{ kind: 'reset' }]);
      errors.push(await failure(client.listOfferings()));
      setFaults(t, [{ kind: 'truncate' }]);
      errors.push(await failure(client.getMerchantBalance()));
      setFaults(t, []);
      errors.push(await failure(client.getCard('card_missing')));
      errors.push(
        await failure(client.freezeCard({ cardId: 'card_missing', merchantOrderNo: orderNo('k') })),
      );
      errors.push(await failure(client.getMerchantBalance({ signal: AbortSignal.abort() })));
    } finally {
      await client.close();
    }
    const untrusting = sandboxClient(t, { ca: undefined, logger: log.logger }).client;
    errors.push(await failure(untrusting.getMerchantBalance()));
    await untrusting.close();
    for (const error of errors) log.logger.error({ err: error }, 'call failed');
    log.logger.flush();

    expect(errors.map((e) => e.code)).toEqual([
      'UPSTREAM_RATE_LIMITED',
      'UPSTREAM_UNAVAILABLE',
      'UPSTREAM_UNAVAILABLE',
      'UPSTREAM_MALFORMED_RESPONSE',
      'UPSTREAM_REJECTED',
      'UPSTREAM_REJECTED',
      'UPSTREAM_ABORTED',
      'UPSTREAM_UNAVAILABLE',
    ]);
    const lines = log.lines();
    expect(lines.some((l) => l.msg === 'retrying upstream call' && l.module === 'api')).toBe(true);
    expect(lines.some((l) => l.level === 40 && l.module === 'api')).toBe(true);
    expect(log.text()).not.toContain(key);
    for (const error of errors) {
      for (const text of serialisations(error)) expect(text).not.toContain(key);
    }
  });

  it('keeps a key the upstream echoes in the code of its refusal out of the error', async () => {
    // The sandbox never echoes a key; an upstream (or a gateway before it) might, in any field.
    const key = 'sk_live_echoed_key_0123456789';
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get('https://upstream.test')
      .intercept({ path: '/merchants/balance', method: 'GET' })
      .reply(403, { statusCode: 403, code: `KEY_BLOCKED:${key}`, message: `key ${key} blocked` });
    const log = capturedLog();
    const client = new CardIssuingClient({
      baseUrl: 'https://upstream.test',
      apiKey: key,
      dispatcher: agent,
      logger: log.logger,
    });
    try {
      const error = await failure(client.getMerchantBalance());
      expect(error).toMatchObject({ code: 'UPSTREAM_REJECTED', status: 403 });
      log.logger.error({ err: error }, 'call failed');
      log.logger.flush();
      expect(error.upstreamCode).not.toContain(key);
      for (const text of serialisations(error)) expect(text).not.toContain(key);
      expect(log.text()).not.toContain(key);
    } finally {
      await agent.close();
    }
  });

  it('keeps a key with characters a URL escapes out of the error when the upstream echoes it URL-encoded, in a redirect or a refusal', async () => {
    // A base64 key: '+', '/' and '=' are written %2B, %2F and %3D in a URL.
    const key = 'sk_live_ab+cd/ef0123456789==';
    const encoded = encodeURIComponent(key);
    // The same, its escapes in lower case, as some servers write them.
    const lower = encoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
    const agent = new MockAgent();
    agent.disableNetConnect();
    const upstream = agent.get('https://upstream.test');
    upstream.intercept({ path: '/merchants/balance', method: 'GET' }).reply(302, '', {
      headers: { location: `https://login.upstream.test/?key=${encoded}&k=${lower}` },
    });
    upstream
      .intercept({ path: '/merchants/offerings', method: 'GET' })
      .reply(400, { statusCode: 400, code: `BAD_KEY_${encoded}`, message: `no key ${encoded}` });
    const log = capturedLog();
    const client = new CardIssuingClient({
      baseUrl: 'https://upstream.test',
      apiKey: key,
      dispatcher: agent,
      logger: log.logger,
    });
    try {
      const errors = [
        await failure(client.getMerchantBalance()),
        await failure(client.listOfferings()),
      ];
      expect(errors.map((e) => e.status)).toEqual([302, 400]);
      for (const error of errors) log.logger.error({ err: error }, 'call failed');
      log.logger.flush();
      for (const error of errors) {
        for (const text of serialisations(error)) {
          expect(text).not.toContain(encoded);
          expect(text).not.toContain(lower);
        }
      }
      expect(log.text()).not.toContain(encoded);
      expect(log.text()).not.toContain(lower);
    } finally {
      await agent.close();
    }
  });

  it('does not echo a wrong key either', async () => {
    const wrong = 'sk_wrong_key_0123456789';
    const log = capturedLog();
    const { client } = sandboxClient(t, { apiKey: wrong, logger: log.logger });
    try {
      const error = await failure(client.getMerchantBalance());
      expect(error.code).toBe('UPSTREAM_UNAUTHORIZED');
      for (const text of serialisations(error)) expect(text).not.toContain(wrong);
      expect(log.text()).not.toContain(wrong);
    } finally {
      await client.close();
    }
  });
});
