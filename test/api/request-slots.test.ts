import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { sandboxClient } from './client-fixtures.js';

describe('CardIssuingClient: a request slot is held while the request is in flight', () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({ seed: 'api-request-slots' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('hands the slot to the next request before parsing the answer that freed it', async () => {
    const { client } = sandboxClient(t, { concurrency: 1 });
    // One connection, already open: both calls below go over it, one after the other.
    await client.getMerchantBalance();
    const events: string[] = [];
    const onSend = (message: unknown) => {
      events.push(`send ${(message as { request: { path: string } }).request.path}`);
    };
    const parse = JSON.parse.bind(JSON);
    const spy = vi.spyOn(JSON, 'parse').mockImplementation((text, reviver) => {
      if (String(text).startsWith('{"data":[')) events.push('parse');
      return parse(text, reviver);
    });
    subscribe('undici:client:sendHeaders', onSend);
    try {
      const [first, second] = await Promise.all([client.listOfferings(), client.listOfferings()]);
      expect(second.records).toEqual(first.records);
      expect(first.records.length).toBeGreaterThan(0);
    } finally {
      unsubscribe('undici:client:sendHeaders', onSend);
      spy.mockRestore();
      await client.close();
    }
    // The second request is on the wire before the first answer is parsed and validated.
    expect(events).toEqual([
      'send /merchants/offerings',
      'send /merchants/offerings',
      'parse',
      'parse',
    ]);
  });
});
