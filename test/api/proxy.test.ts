import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  CardIssuingClient,
  type CardIssuingClientOptions,
  ClientConfigError,
  UpstreamError,
} from '../../src/api/index.js';
import { loadTlsMaterial } from '../../src/sandbox/tls/certificates.js';
import {
  deadPort,
  type EgressProxy,
  type NamedSandbox,
  startEgressProxy,
  startNamedSandbox,
} from '../support/egress-proxy.js';
import { capturedLog, recordingSleep } from './client-fixtures.js';
import { failureOf } from './scripted-upstream.js';

const PASSWORD = 'tunn3l-s3cret';

describe('CardIssuingClient through an HTTP CONNECT proxy', () => {
  let upstream: NamedSandbox;
  let proxy: EgressProxy;
  /** What the next CONNECTs are refused with (or left unanswered), in turn; opened once none is left. */
  let refusals: (number | 'hold')[] = [];
  let ca: string;
  let apiKey: string;
  beforeAll(async () => {
    upstream = await startNamedSandbox('cards.upstream.test', { seed: 'proxy-client' });
    proxy = await startEgressProxy({ hosts: upstream.hosts, answer: () => refusals.shift() });
    ca = readFileSync(upstream.caFile, 'utf8');
    apiKey = upstream.t.sandbox.merchants[0]!.apiKey;
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });
  beforeEach(() => {
    proxy.seen.length = 0;
    refusals = [];
  });

  const withCredentials = () => `http://cardsync:${PASSWORD}@127.0.0.1:${proxy.port}`;

  /** A client of the named upstream through `proxyUrl`, waits recorded, its log captured. */
  function clientVia(proxyUrl: string, options: Partial<CardIssuingClientOptions> = {}) {
    const sleep = recordingSleep();
    const log = capturedLog('debug');
    const client = new CardIssuingClient({
      baseUrl: upstream.baseUrl,
      apiKey,
      ca,
      proxy: { url: proxyUrl },
      sleep: sleep.sleep,
      logger: log.logger,
      ...options,
    });
    return { client, waits: sleep.waits, log };
  }

  it('reads through tunnels it keeps open: ten reads on a concurrency of 2 open at most 2', async () => {
    const { client } = clientVia(withCredentials(), { concurrency: 2 });
    try {
      const balances = await Promise.all(
        Array.from({ length: 10 }, () => client.getMerchantBalance()),
      );
      expect(balances.every((b) => b.currency === 'USD')).toBe(true);
    } finally {
      await client.close();
    }
    const { port } = new URL(upstream.baseUrl);
    expect(proxy.seen.length).toBeGreaterThanOrEqual(1);
    expect(proxy.seen.length).toBeLessThanOrEqual(2);
    expect(proxy.seen.map((s) => s.target)).toEqual(
      proxy.seen.map(() => `cards.upstream.test:${port}`),
    );
  });

  it("verifies the upstream's certificate inside the tunnel: without its CA, a TLS failure naming both, not retried", async () => {
    const { client, waits } = clientVia(withCredentials(), { ca: undefined });
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.attempts).toBe(1);
      expect(error.message).toContain(
        `TLS verification of ${upstream.baseUrl} (through proxy http://127.0.0.1:${proxy.port}) failed`,
      );
      expect(error.message).toContain('not signed by a trusted CA');
      expect(waits).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('tells an upstream certificate for another host inside the tunnel, not retried', async () => {
    const { port } = new URL(upstream.baseUrl);
    const other = await startEgressProxy({ hosts: { 'other.upstream.test': '127.0.0.1' } });
    const baseUrl = `https://other.upstream.test:${port}`;
    const { client, waits } = clientVia(other.url, { baseUrl });
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error.attempts).toBe(1);
      expect(error.message).toBe(
        `getMerchantBalance: TLS verification of ${baseUrl} (through proxy ${other.url}) failed (ERR_TLS_CERT_ALTNAME_INVALID: its certificate is for another host) (1 attempt)`,
      );
      expect(waits).toEqual([]);
    } finally {
      await client.close();
      await other.close();
    }
  });

  it("verifies an https:// proxy's own certificate against Node's trust: one it does not trust is named, not retried", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cardsync-proxy-tls-'));
    const identity = await loadTlsMaterial(dir, false);
    const secure = await startEgressProxy({
      hosts: upstream.hosts,
      tls: { cert: identity.certPem, key: identity.keyPem },
    });
    const { client, waits } = clientVia(`https://cardsync:${PASSWORD}@127.0.0.1:${secure.port}`);
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.attempts).toBe(1);
      expect(waits).toEqual([]);
      expect(error.message).toMatch(
        /^getMerchantBalance: TLS verification of proxy https:\/\/127\.0\.0\.1:\d+ failed \([A-Z_]+: its certificate is not signed by a CA Node trusts \(its CA goes in NODE_EXTRA_CA_CERTS\)\), on the way to https:\/\/cards\.upstream\.test:\d+ \(1 attempt\)$/,
      );
      expect(secure.seen).toEqual([]);
      expect(JSON.stringify(error)).not.toContain(PASSWORD);
    } finally {
      await client.close();
      await secure.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('takes a 407 as the configuration it is: not retried, the proxy named without its credentials', async () => {
    refusals = [407, 407, 407];
    const { client, log } = clientVia(withCredentials());
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.code).toBe('UPSTREAM_PROXY_REFUSED');
      expect(error.attempts).toBe(1);
      expect(error.message).toBe(
        `getMerchantBalance: proxy http://127.0.0.1:${proxy.port} refused the tunnel to ${upstream.baseUrl} with 407 (Proxy Authentication Required: are the credentials in its URL right?) (1 attempt)`,
      );
      expect(proxy.seen).toHaveLength(1);
      for (const text of [error.message, JSON.stringify(error), log.text()])
        expect(text).not.toContain(PASSWORD);
    } finally {
      await client.close();
    }
  });

  it('sends a user without a password as Basic "user:", as curl does, and decodes percent-escapes', async () => {
    const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;
    for (const [userinfo, pair] of [
      ['tok3n', 'tok3n:'],
      ['svc%40corp:p%3Ass', 'svc@corp:p:ss'],
    ] as const) {
      proxy.seen.length = 0;
      const { client } = clientVia(`http://${userinfo}@127.0.0.1:${proxy.port}`);
      try {
        await client.getMerchantBalance();
      } finally {
        await client.close();
      }
      expect(proxy.seen.map((s) => s.authorization)).toEqual([basic(pair)]);
    }
  });

  it('does not retry a 403 either (the proxy does not let this host through)', async () => {
    refusals = [403, 403];
    const { client } = clientVia(withCredentials());
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error.attempts).toBe(1);
      expect(error.message).toContain('with 403 (it does not let this host through)');
    } finally {
      await client.close();
    }
  });

  it('retries a 502 or 503 from the proxy as it would the upstream’s, and reads once let through', async () => {
    refusals = [502, 503];
    const { client, waits, log } = clientVia(withCredentials());
    try {
      const balance = await client.getMerchantBalance();
      expect(balance.currency).toBe('USD');
      expect(waits).toHaveLength(2);
      expect(proxy.seen).toHaveLength(3);
      const retried = log.lines().filter((l) => l.msg === 'retrying upstream call');
      expect(retried.map((l) => l.reason)).toEqual([
        `proxy http://127.0.0.1:${proxy.port} refused the tunnel to ${upstream.baseUrl} with 502 (it could not reach the upstream)`,
        `proxy http://127.0.0.1:${proxy.port} refused the tunnel to ${upstream.baseUrl} with 503 (it is unavailable)`,
      ]);
      expect(log.text()).not.toContain(PASSWORD);
    } finally {
      await client.close();
    }
  });

  it('retries a proxy it cannot reach, then names it (without credentials) and why', async () => {
    const port = await deadPort();
    const { client, waits } = clientVia(`http://cardsync:${PASSWORD}@127.0.0.1:${port}`, {
      retry: { maxAttempts: 3 },
    });
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(error.attempts).toBe(3);
      expect(waits).toHaveLength(2);
      expect(error.message).toBe(
        `getMerchantBalance: connection to proxy http://127.0.0.1:${port} failed (ECONNREFUSED: connection refused), on the way to ${upstream.baseUrl} (3 attempts)`,
      );
      expect(JSON.stringify(error)).not.toContain(PASSWORD);
    } finally {
      await client.close();
    }
  });

  it('gives up on a proxy that never answers the CONNECT as on a response head, and retries', async () => {
    refusals = ['hold', 'hold'];
    const { client, waits } = clientVia(withCredentials(), {
      timeouts: { headersMs: 300 },
      retry: { maxAttempts: 2 },
    });
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error.code).toBe('UPSTREAM_TIMEOUT');
      expect(error.attempts).toBe(2);
      expect(waits).toHaveLength(1);
      expect(error.message).toContain(
        `connection to proxy http://127.0.0.1:${proxy.port} timed out (UND_ERR_HEADERS_TIMEOUT)`,
      );
    } finally {
      await client.close();
    }
  });

  it('goes around the proxy for a host NO_PROXY names (here it then cannot resolve it)', async () => {
    const { client } = clientVia(withCredentials(), {
      proxy: { url: withCredentials(), noProxy: 'localhost,.upstream.test' },
      retry: { maxAttempts: 1 },
    });
    try {
      const error = (await failureOf(client.getMerchantBalance())) as UpstreamError;
      expect(error.message).toContain(`connection to ${upstream.baseUrl} failed (ENOTFOUND`);
      expect(proxy.seen).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('refuses a proxy URL that is not http:// or https:// at construction, without quoting it', () => {
    const build = (url: string) => () =>
      new CardIssuingClient({ baseUrl: upstream.baseUrl, apiKey, proxy: { url } });
    expect(build(`socks5://u:${PASSWORD}@proxy:1080`)).toThrow(ClientConfigError);
    expect(build(`socks5://u:${PASSWORD}@proxy:1080`)).toThrow(
      'proxy.url: must be an http:// or https:// URL (got socks5://)',
    );
    expect(build(`http://u:${PASSWORD}%zz@proxy:3128`)).toThrow(
      'proxy.url: must percent-encode its user and password (a % not followed by two hex digits)',
    );
    expect(build(`http://u:${PASSWORD}@[nope`)).toThrow(
      /^proxy\.url: must be an http:\/\/ or https:\/\/ URL$/,
    );
  });
});
