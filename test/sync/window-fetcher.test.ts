import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import type { ListTransactionsQuery, Transaction } from '../../src/contract/index.js';
import type { TimeRange } from '../../src/sync/time-range.js';
import { fetchWindow, type WindowQuery } from '../../src/sync/window-fetcher.js';
import { runWorkPool } from '../../src/sync/work-pool.js';
import { insertDenseMillisecond } from '../support/dense-millisecond.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** A client of the sandbox for one of its merchants, `concurrency` requests in flight. */
function clientOf(
  t: TestSandbox,
  merchantId: string | undefined,
  concurrency: number,
): CardIssuingClient {
  const merchant = t.sandbox.merchants.find((m) => m.merchantId === merchantId);
  if (!merchant) throw new Error(`no merchant ${merchantId}`);
  return new CardIssuingClient({
    baseUrl: t.sandbox.baseUrl,
    apiKey: merchant.apiKey,
    ca: t.sandbox.caPem,
    concurrency,
  });
}

describe('a window of rising density, split before paging', () => {
  let t: TestSandbox;
  let api: CardIssuingClient;
  beforeAll(async () => {
    // Cards accumulate over the days, so the newer end of the history is many times denser.
    t = await startTestSandbox({
      seed: 'window-fetcher',
      world: { cards: 200, transactions: 12000, days: 120, anomaliesPerCode: 0 },
    });
    api = clientOf(t, t.sandbox.merchants[0]?.merchantId, 1);
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

describe('a window of one millisecond holding many pages', () => {
  const ROWS = 2_500;
  const MAX_PAGES = 3;
  let t: TestSandbox;
  let api: CardIssuingClient;
  let range: TimeRange;
  beforeAll(async () => {
    t = await startTestSandbox({
      seed: 'window-fetcher-dense',
      world: { cards: 5, transactions: 20, days: 5, anomaliesPerCode: 0 },
    });
    const dense = insertDenseMillisecond(t.sandbox, ROWS);
    range = { start: dense.at, end: dense.at + 1 };
    api = clientOf(t, dense.merchantId, 4);
  });
  afterAll(async () => {
    await api.close();
    await t.close();
  });

  /** The client, counting the rows its pages brought. */
  function countingLister(received: { rows: number }) {
    return {
      listTransactions: async (...args: Parameters<CardIssuingClient['listTransactions']>) => {
        const page = await api.listTransactions(...args);
        received.rows += page.records.length;
        return page;
      },
    };
  }

  it('hands its rows over a group of pages at a time, never holding the window whole', async () => {
    const received = { rows: 0 };
    const handed = new Set<string>();
    let mostHeld = 0;
    let landing = 0;
    let overlapped = false;
    const result = await fetchWindow(
      countingLister(received),
      { range },
      {
        maxPages: MAX_PAGES,
        landAhead: async (rows) => {
          mostHeld = Math.max(mostHeld, received.rows - handed.size);
          if (landing > 0) overlapped = true;
          landing += 1;
          for (const row of rows) handed.add(row.transactionId);
          // A slow disk: the next group is read meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 20));
          landing -= 1;
        },
      },
    );
    if (result.kind !== 'fetched') throw new Error('a window of 1 ms cannot be split');
    expect(result.verified).toBe(true);
    expect(result.expected).toBe(ROWS);
    // Handed over in groups of the page bound, one landing at a time, all over on return.
    expect(handed.size).toBeGreaterThanOrEqual(ROWS - (MAX_PAGES + 1) * 100);
    expect(mostHeld).toBeLessThanOrEqual((MAX_PAGES + 1) * 100);
    expect(overlapped).toBe(false);
    expect(landing).toBe(0);
    // Every row once: those handed over (named in `landedAhead`) and those returned.
    for (const id of result.rows.keys()) expect(handed.has(id)).toBe(false);
    expect(result.landedAhead).toEqual(handed);
    expect(handed.size + result.rows.size).toBe(ROWS);
  });

  it('holds it whole when nothing lands ahead', async () => {
    const result = await fetchWindow(countingLister({ rows: 0 }), { range }, { maxPages: 3 });
    if (result.kind !== 'fetched') throw new Error('a window of 1 ms cannot be split');
    expect(result.rows.size).toBe(ROWS);
    expect(result.landedAhead.size).toBe(0);
  });

  it('keeps the first of two records listed under one id and rejects the other, read after read', async () => {
    // Every read lists its 2,000th row under the id of its first, with its own content.
    let first: string | undefined;
    let listed = 0;
    const lister = {
      listTransactions: async (
        query: ListTransactionsQuery,
        options?: { signal?: AbortSignal },
      ) => {
        const page = await api.listTransactions(query, options);
        const at = query.page ?? 1;
        if (at === 1) first = page.records[0]?.transactionId;
        const offset = (at - 1) * page.pagination.limit;
        page.records = page.records.map((row, i) =>
          offset + i === 1_999 && first ? { ...row, transactionId: first } : row,
        );
        listed += page.records.length;
        return page;
      },
    };
    const result = await fetchWindow(lister, { range }, { maxPages: 3 });
    if (result.kind !== 'fetched') throw new Error('a window of 1 ms cannot be split');
    expect(result.verified).toBe(true);
    // Read twice: one read alone may be drift.
    expect(listed).toBe(2 * ROWS);
    expect(result.rows.size).toBe(ROWS - 1);
    expect(result.rejected.map((error) => error.message)).toEqual([
      expect.stringContaining(`/transactionId ${first} is listed twice`),
    ]);
  });

  it('fails with a failed landing, once no landing is under way', async () => {
    let landing = 0;
    let calls = 0;
    const failure = fetchWindow(
      countingLister({ rows: 0 }),
      { range },
      {
        maxPages: MAX_PAGES,
        landAhead: async () => {
          calls += 1;
          landing += 1;
          await new Promise((resolve) => setTimeout(resolve, 20));
          landing -= 1;
          if (calls === 2) throw new Error('disk full');
        },
      },
    );
    await expect(failure).rejects.toThrow('disk full');
    expect(landing).toBe(0);
    // No group is handed over after the failure was seen.
    expect(calls).toBe(2);
  });
});

describe('a window read while a row moves on an upstream ordered by change', () => {
  let t: TestSandbox;
  let api: CardIssuingClient;
  beforeAll(async () => {
    t = await startTestSandbox({
      seed: 'window-fetcher-moved-row',
      world: { cards: 20, transactions: 1000, days: 20, anomaliesPerCode: 0 },
    });
    api = clientOf(t, t.sandbox.merchants[0]?.merchantId, 2);
  });
  afterAll(async () => {
    await api.close();
    await t.close();
  });

  it('reads it again, not taking the moved row for two records sharing its id', async () => {
    const range: TimeRange = { start: Date.parse('2000-01-01T00:00:00Z'), end: Date.now() };
    const total = (await api.listTransactions({ page: 1, limit: 1 })).pagination.total;
    // On the first read, a row of the first page changes once that page is answered and moves
    // to the end of the list: the last page lists it again, changed, and the row it pushed
    // back (the last page's first) is listed by no page. The count stays level.
    let reads = 0;
    let moved: Transaction | undefined;
    let missed: string | undefined;
    const lister = {
      listTransactions: async (
        query: ListTransactionsQuery,
        options?: { signal?: AbortSignal },
      ) => {
        const page = await api.listTransactions(query, options);
        const at = query.page ?? 1;
        if (at === 1) reads += 1;
        if (reads === 1 && at === 1) moved = page.records[0];
        const last = Math.ceil(page.pagination.total / page.pagination.limit);
        if (reads === 1 && at === last && at > 1 && moved) {
          missed = page.records[0]?.transactionId;
          const changed = {
            ...moved,
            status: moved.status === 'PENDING' ? 'COMPLETED' : 'PENDING',
          };
          page.records = [changed as Transaction, ...page.records.slice(1)];
        }
        return page;
      },
    };
    const result = await fetchWindow(lister, { range }, { maxPages: 20 });
    if (result.kind !== 'fetched') throw new Error(`expected a fetched window, got ${result.kind}`);
    expect(total).toBeGreaterThan(100);
    expect(missed).toBeDefined();
    expect(reads).toBe(2);
    expect(result.verified).toBe(true);
    expect(result.rejected).toEqual([]);
    expect(result.rows.size).toBe(total);
    expect(result.rows.has(missed as string)).toBe(true);
  });
});
