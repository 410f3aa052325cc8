import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a first sync stopped between two windows, no request in flight', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'stopped-between-windows',
      world: { cards: 20, transactions: 600, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('reports its transactions step unfinished, not done', async () => {
    const stop = new AbortController();
    let windowsRead = 0;
    const stopped = await w.sync({
      mirrorFile: join(w.dir, 'stopped.sqlite'),
      // One request at a time and windows of one page: the stop below falls where no request
      // is in flight, so nothing fails, and the pool only starts no more windows.
      settings: { concurrency: 1, maxPagesPerWindow: 1 },
      signal: stop.signal,
      wrapApi: (api) => ({
        ...syncApiOf(api),
        async listTransactions(query, options) {
          const page = await api.listTransactions(query, options);
          const { page: number, limit, total } = page.pagination;
          const last = number * limit >= total;
          if (query.limit !== 1 && last && ++windowsRead === 2) stop.abort();
          return page;
        },
      }),
    });
    expect(stop.signal.aborted).toBe(true);
    expect(stopped.outcome).toBe('interrupted');
    const merchant = stopped.merchants[0];
    expect(merchant?.transactions.windows).toBeGreaterThan(0);
    // Windows the pool never started were not read: the step did not finish.
    expect(merchant?.transactions.outcome).toBe('failed');
    expect(merchant?.error?.message).toMatch(/^transactions: /);
  });
});
