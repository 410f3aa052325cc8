import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareMirror } from '../support/mirror-comparison.js';
import { pagingByOwnSize } from '../support/paging-by-own-size.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/** The upstream's own page size, whatever limit is asked for. */
const UPSTREAM_PAGE = 20;

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
    const result = await w.sync({
      wrapApi: (api) => pagingByOwnSize(api, ['listCards'], UPSTREAM_PAGE),
    });
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingCards).toEqual([]);
    // Read off the list, not asked for one by one through /cards/info as cards the list hid.
    expect(result.merchants[0]!.missingCards.checked).toBe(0);
  });
});
