import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { insertDenseMillisecond } from '../support/dense-millisecond.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/** The upstream's own page size, whatever limit is asked for. */
const UPSTREAM_PAGE = 20;

/**
 * The client of an upstream that pages transactions by 20 whatever `limit` asks for, and
 * echoes the limit asked for in `pagination` (with the totalPages that limit would give).
 */
function ignoringLimit(api: CardIssuingClient): SyncApi {
  return {
    ...syncApiOf(api),
    listTransactions: async (query, options) => {
      const page = await api.listTransactions({ ...query, limit: UPSTREAM_PAGE }, options);
      const limit = Number(query.limit ?? UPSTREAM_PAGE);
      page.pagination = {
        ...page.pagination,
        limit,
        totalPages: Math.ceil(page.pagination.total / limit),
      };
      return page;
    },
  };
}

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
    const result = await w.sync({ wrapApi: ignoringLimit });
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
  });
});
