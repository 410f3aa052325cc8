import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import type { TimeRange } from '../../src/sync/time-range.js';
import { fetchWindow, type WindowQuery } from '../../src/sync/window-fetcher.js';
import { runWorkPool } from '../../src/sync/work-pool.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

describe('a window of rising density, split before paging', () => {
  let t: TestSandbox;
  let api: CardIssuingClient;
  beforeAll(async () => {
    // Cards accumulate over the days, so the newer end of the history is many times denser.
    t = await startTestSandbox({
      seed: 'window-fetcher',
      world: { cards: 200, transactions: 12000, days: 120, anomaliesPerCode: 0 },
    });
    const merchant = t.sandbox.merchants[0];
    if (!merchant) throw new Error('no merchant');
    api = new CardIssuingClient({
      baseUrl: t.sandbox.baseUrl,
      apiKey: merchant.apiKey,
      ca: t.sandbox.caPem,
      concurrency: 1,
    });
  });
  afterAll(async () => {
    await api.close();
    await t.close();
  });

  it('cuts a part its read neighbours show too big without requesting its first page', async () => {
    const whole: TimeRange = {
      start: Date.parse('2000-01-01T00:00:00Z'),
      end: Date.now() + 86_400_000,
    };
    const total = (await api.listTransactions({ page: 1, limit: 1 })).pagination.total;
    const before = api.stats().requests;
    const ids = new Set<string>();
    let leafPages = 0;
    let splits = 0;
    // One window at a time, so the parts are read in the order the split gives them.
    await runWorkPool<WindowQuery>(
      [{ range: whole }],
      async (window) => {
        const result = await fetchWindow(api, window, { maxPages: 2 });
        if (result.kind === 'split') {
          splits += 1;
          return result.parts.map((range) => ({ range, density: result.density }));
        }
        leafPages += Math.max(1, Math.ceil(result.expected / 100));
        for (const id of result.rows.keys()) ids.add(id);
        return [];
      },
      { concurrency: 1 },
    );
    const requests = api.stats().requests - before;
    expect(ids.size).toBe(total);
    // Every request beyond the leaves' pages is a first page thrown away by a split: 14 when
    // each part was asked for its count itself, 9 once parts lying between dense ones are cut
    // on their neighbours' counts.
    expect(splits).toBeGreaterThan(5);
    expect(requests - leafPages).toBeLessThanOrEqual(10);
  });
});
