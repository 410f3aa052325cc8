import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denseRowId, insertDenseMillisecond } from '../support/dense-millisecond.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/** More rows in one millisecond than the audit reads at once (3 pages of 100). */
const ROWS = 1_000;

describe('rows of a dense millisecond that the upstream no longer shows', () => {
  let w: SyncWorld;
  let at: number;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'vanished-dense-millisecond',
      world: { cards: 5, transactions: 50, days: 10, anomaliesPerCode: 0 },
    });
    at = insertDenseMillisecond(w.t.sandbox, ROWS).at;
  }, 120_000);
  afterAll(async () => w.close());

  it('are each counted once as vanished, however many audited ranges reach the millisecond', async () => {
    const file = join(w.dir, 'vanished.sqlite');
    // The millisecond lies before the lookback: only the closing count audit reads it again.
    const settings = { maxPagesPerWindow: 3, lookbackMs: 600_000 };
    expect((await w.sync({ mirrorFile: file, settings })).outcome).toBe('done');
    const hidden = new Set([5, 500, 999].map(denseRowId));
    // What the upstream would answer had it lost those rows: never listed, never counted.
    const result = await w.sync({
      mirrorFile: file,
      settings,
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listTransactions: async (query, options) => {
          const page = await api.listTransactions(query, options);
          const start = query.startTime === undefined ? -Infinity : Date.parse(query.startTime);
          const end = query.endTime === undefined ? Infinity : Date.parse(query.endTime);
          const holds = start <= at && at <= end && [undefined, 'COMPLETED'].includes(query.status);
          if (!holds) return page;
          return {
            ...page,
            records: page.records.filter((t) => !hidden.has(t.transactionId)),
            pagination: { ...page.pagination, total: page.pagination.total - hidden.size },
          };
        },
      }),
    });
    expect(result.outcome).toBe('done');
    const merchant = result.merchants[0];
    // Several halves of the history reach the millisecond through their extents, each read.
    expect(merchant?.audit.surplus).toBeGreaterThan(1);
    expect(merchant?.unsettled.vanished).toBe(hidden.size);
  }, 120_000);
});
