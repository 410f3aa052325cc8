import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import { journalMerchant } from '../../src/cli/journal-merchant.js';
import type { MerchantSession } from '../../src/cli/merchant-session.js';
import type { MerchantSource } from '../../src/config/index.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('the merchant an order is journaled for, when the list starts with a card of another merchant', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'journal-merchant-stray-card',
      world: { cards: 6, transactions: 20, days: 3, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is the merchant the sync learnt from its own cards, not the stray card at the head', async () => {
    // The upstream slips a card of another merchant to the head of the list, as in
    // test/sync/sync-new-merchant.test.ts: the sync quarantines it and learns the real id.
    const strayFirst = (api: CardIssuingClient) => {
      const list = api.listCards.bind(api);
      api.listCards = async (query, options) => {
        const page = await list(query, options);
        if ((query?.page ?? 1) !== 1 || page.records.length === 0) return page;
        const stray = { ...page.records[0]!, cardId: 'card_stray', merchantId: 'mch_stray' };
        const records = [stray, ...page.records].slice(0, query?.limit ?? Number.POSITIVE_INFINITY);
        const pagination = { ...page.pagination, total: page.pagination.total + 1 };
        return { ...page, records, pagination };
      };
      return api;
    };
    const real = w.t.sandbox.merchants[0]!.merchantId;
    const synced = await w.sync({ wrapApi: (api) => syncApiOf(strayFirst(api)) });
    expect(synced.merchants[0]?.merchantId).toBe(real);

    const api = strayFirst(
      new CardIssuingClient({
        baseUrl: w.t.sandbox.baseUrl,
        apiKey: w.t.sandbox.merchants[0]!.apiKey,
        ca: w.t.sandbox.caPem,
      }),
    );
    const merchant = { name: 'm0', baseUrl: w.t.sandbox.baseUrl } as MerchantSource;
    const mirror = w.openMirror();
    try {
      const who = await journalMerchant({ merchant, api } as MerchantSession, mirror.db, {
        needCurrency: false,
        signal: new AbortController().signal,
      });
      // Before: 'mch_stray', the first listed card's, while the sync mirrors the merchant as `real`.
      expect(who.merchantId).toBe(real);
    } finally {
      await mirror.close();
      await api.close();
    }
  });
});
