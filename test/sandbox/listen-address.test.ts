import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

describe('a sandbox listening on the IPv6 loopback (host ::1)', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ host: '::1' });
  });
  afterAll(async () => t?.close());

  it('announces a base URL with the address in brackets, which its certificate serves', async () => {
    // `https://::1:PORT` is no URL at all: every client handed it (cardsync's CARDSYNC_BASE_URL
    // included) fails before sending a byte, though the certificate names ::1.
    expect(t.sandbox.baseUrl).toMatch(/^https:\/\/\[::1\]:\d+$/);
    const balance = await t.merchants[0]?.get('/merchants/balance');
    expect(balance?.status, balance?.text).toBe(200);
  });
});
