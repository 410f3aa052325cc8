import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertDenseMillisecond } from '../support/dense-millisecond.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { pagingByOwnSize } from '../support/paging-by-own-size.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/** The upstream's own page size, whatever limit is asked for. */
const UPSTREAM_PAGE = 20;

describe('transaction pages shorter than the limit they report', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-transaction-page-size-ignored',
      world: { cards: 10, transactions: 300, days: 10, anomaliesPerCode: 0 },
    });
    // A window of one millisecond cannot be split down to one short page: it must be paged.
    insertDenseMillisecond(w.t.sandbox, 2 * UPSTREAM_PAGE + 10);
  });
  afterAll(async () => w.close());

  it('are read by the page size the first page shows: every transaction is mirrored', async () => {
    const result = await w.sync({
      wrapApi: (api) => pagingByOwnSize(api, ['listTransactions'], UPSTREAM_PAGE),
    });
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
  });
});
