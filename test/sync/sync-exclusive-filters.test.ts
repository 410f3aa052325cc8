import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { fetchWindow } from '../../src/sync/window-fetcher.js';
import { activeCard, postVerification } from '../support/forced-transactions.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/**
 * An upstream whose time filters are exclusive on both ends (`startTime < createdAt < endTime`),
 * which reference-model section 7 says a sync must not rule out, with its clock read as `now`.
 */
function exclusive(api: CardIssuingClient, now?: number): SyncApi {
  const shift = (at: string | undefined, by: number) =>
    at === undefined ? undefined : new Date(Date.parse(at) + by).toISOString();
  return {
    ...syncApiOf(api),
    listTransactions: (query, options) => {
      const { startTime, endTime, ...rest } = query;
      const start = shift(startTime, 1);
      const end = shift(endTime, -1);
      return api.listTransactions(
        { ...rest, ...(start ? { startTime: start } : {}), ...(end ? { endTime: end } : {}) },
        options,
      );
    },
    upstreamNow: () => now ?? api.upstreamNow(),
  };
}

describe('an upstream whose time filters are exclusive', () => {
  let w: SyncWorld;
  let card: string;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-exclusive-filters',
      world: { cards: 30, transactions: 400, days: 20, anomaliesPerCode: 0 },
    });
    card = activeCard(w.t);
  });
  afterAll(async () => w.close());

  const post = (createdAt: number) => postVerification(w.t, createdAt, card);

  it('has the count audit catch a late posting even when the tail holds a row on the millisecond after the cutoff', async () => {
    expect((await w.sync({ wrapApi: (api) => exclusive(api) })).outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);

    // The next night: a row posted late, two weeks back (far before the lookback), and a row
    // created on the millisecond after the cutoff, which only the tail reads.
    const now = Math.floor(Date.now() / 1000) * 1000;
    const cutoff = now - 60_000;
    await post(Date.now() - 14 * 86_400_000);
    await post(cutoff + 1);
    const result = await w.sync({ wrapApi: (api) => exclusive(api, now) });
    expect(result.outcome).toBe('done');
    expect(result.cutoff).toBe(new Date(cutoff).toISOString());
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
  });

  it('reads the rows on both bounding milliseconds of a window', async () => {
    const merchant = w.t.sandbox.merchants[0];
    if (!merchant) throw new Error('no merchant');
    const api = new CardIssuingClient({
      baseUrl: w.t.sandbox.baseUrl,
      apiKey: merchant.apiKey,
      ca: w.t.sandbox.caPem,
      concurrency: 1,
    });
    try {
      const start = Math.floor(Date.now() / 1000) * 1000 - 3_600_000;
      const end = start + 1000;
      const first = await post(start);
      const last = await post(end);
      const result = await fetchWindow(exclusive(api), { range: { start, end } }, { maxPages: 5 });
      expect(result.kind).toBe('fetched');
      const ids = result.kind === 'fetched' ? [...result.rows.keys()] : [];
      expect(ids).toEqual(expect.arrayContaining([first, last]));
    } finally {
      await api.close();
    }
  });
});
