import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CardIssuingClient,
  type CardIssuingClientOptions,
  ClientConfigError,
} from '../../src/api/index.js';

function configError(options: CardIssuingClientOptions): ClientConfigError {
  try {
    new CardIssuingClient(options);
  } catch (error) {
    expect(error).toBeInstanceOf(ClientConfigError);
    return error as ClientConfigError;
  }
  throw new Error('the client was built');
}

describe('CardIssuingClient options', () => {
  let listener: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    listener = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  });

  it('refuses an http:// base URL at construction, before any connection is made', async () => {
    const error = configError({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k' });
    expect(error).toMatchObject({ code: 'CLIENT_CONFIG_INVALID', key: 'baseUrl' });
    expect(error.message).toContain('https://');
    // Nothing listens on port 1 either: the refusal does not depend on a server answering.
    expect(configError({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' }).key).toBe('baseUrl');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(connections).toBe(0);
  });

  it.each([
    ['not a url', 'baseUrl'],
    ['ftp://example.test', 'baseUrl'],
    ['https://user:secret@example.test', 'baseUrl'],
    ['https://example.test/?key=1', 'baseUrl'],
  ])('refuses the base URL %j', (baseUrl, key) => {
    expect(configError({ baseUrl, apiKey: 'k' }).key).toBe(key);
  });

  it('refuses an empty key, a CA that is not a PEM certificate, and bad numbers, naming the option', () => {
    const baseUrl = 'https://example.test';
    expect(configError({ baseUrl, apiKey: '' }).key).toBe('apiKey');
    expect(configError({ baseUrl, apiKey: '  ' }).key).toBe('apiKey');
    expect(configError({ baseUrl, apiKey: 'k', ca: 'hello' }).key).toBe('ca');
    expect(
      configError({
        baseUrl,
        apiKey: 'k',
        ca: '-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n',
      }).key,
    ).toBe('ca');
    expect(configError({ baseUrl, apiKey: 'k', concurrency: 0 }).key).toBe('concurrency');
    expect(configError({ baseUrl, apiKey: 'k', concurrency: 2.5 }).key).toBe('concurrency');
    expect(configError({ baseUrl, apiKey: 'k', timeouts: { headersMs: -1 } }).key).toBe(
      'timeouts.headersMs',
    );
    expect(configError({ baseUrl, apiKey: 'k', retry: { maxAttempts: 0 } }).key).toBe(
      'retry.maxAttempts',
    );
  });

  it('refuses a key that cannot be sent as the x-api-key header at construction, not as a failed request', () => {
    const baseUrl = 'https://example.test';
    const error = configError({ baseUrl, apiKey: 'sk_live_do_not_print_me\u201d' });
    expect(error.key).toBe('apiKey');
    expect(error.message).not.toContain('sk_live_do_not_print_me');
    expect(configError({ baseUrl, apiKey: 'sk_live\r\nx-other: 1' }).key).toBe('apiKey');
  });

  it('never puts the key in a configuration error', () => {
    const apiKey = 'sk_live_do_not_print_me';
    const error = configError({ baseUrl: 'http://example.test', apiKey });
    expect(JSON.stringify(error)).not.toContain(apiKey);
    expect(String(error.stack)).not.toContain(apiKey);
  });

  it('starts with the limit at the configured concurrency and closes cleanly', async () => {
    const client = new CardIssuingClient({
      baseUrl: 'https://example.test/',
      apiKey: 'k',
      concurrency: 3,
    });
    expect(client.stats()).toEqual({
      requests: 0,
      retries: 0,
      rateLimited: 0,
      concurrencyLimit: 3,
    });
    expect(client.upstreamNow()).toBeUndefined();
    await client.close();
  });
});
