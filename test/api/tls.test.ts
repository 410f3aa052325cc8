import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError } from '../../src/api/index.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { sandboxClient } from './client-fixtures.js';

describe('CardIssuingClient: TLS', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-tls' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses the sandbox certificate without its CA: UPSTREAM_UNAVAILABLE, not retried, cause kept', async () => {
    const { client, waits } = sandboxClient(t, { ca: undefined });
    try {
      const error = await client.getMerchantBalance().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', attempts: 1, status: undefined });
      expect((error as Error).message).toContain('TLS');
      const cause = (error as Error).cause as { code?: string };
      expect(cause.code).toMatch(/CERT|SIGNATURE/);
      expect(waits).toEqual([]);
    } finally {
      await client.close();
    }
  });

  it('accepts it with the CA added to the system roots', async () => {
    const { client } = sandboxClient(t);
    try {
      expect((await client.getMerchantBalance()).currency).toBe('USD');
    } finally {
      await client.close();
    }
  });
});

describe('CardIssuingClient: TLS to an IPv6 address', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-tls-ipv6', host: '::1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('accepts a certificate that names the address ::1 for https://[::1]:PORT', async () => {
    // Node 22.23 (and 24.17 to 24.19) check the name as a domain first, which an IPv6 address is
    // not: every certificate was refused for it (ERR_TLS_CERT_ALTNAME_INVALID).
    expect(t.sandbox.baseUrl).toMatch(/^https:\/\/\[::1\]:\d+$/);
    const { client } = sandboxClient(t);
    try {
      expect((await client.getMerchantBalance()).currency).toBe('USD');
    } finally {
      await client.close();
    }
  });
});
