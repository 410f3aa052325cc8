import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { compareMirror } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/** The upstream's own page size, whatever limit is asked for. */
const UPSTREAM_PAGE = 20;

/**
 * The client of an upstream that pages the card list by 20 whatever `limit` asks for, and
 * echoes the limit asked for in `pagination` (with the totalPages that limit would give).
 */
function ignoringLimit(api: CardIssuingClient): SyncApi {
  return {
    ...syncApiOf(api),
    listCards: async (query, options) => {
      const page = await api.listCards({ ...query, limit: UPSTREAM_PAGE }, options);
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

describe('a card list whose pages are shorter than the limit it reports', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-card-page-size-ignored',
      world: { cards: 90, transactions: 100, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is read by the page size its first page shows: every card is mirrored', async () => {
    const result = await w.sync({ wrapApi: ignoringLimit });
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingCards).toEqual([]);
    // Read off the list, not asked for one by one through /cards/info as cards the list hid.
    expect(result.merchants[0]!.missingCards.checked).toBe(0);
  });
});
