import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { quarantineRows } from '../support/quarantine-rows.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a /cards/info answer naming another merchant', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-card-info-other-merchant',
      world: { cards: 20, transactions: 200, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is quarantined as that merchant’s card, as the card list’s would be, not dropped unseen', async () => {
    const merchantId = w.t.sandbox.merchants[0]!.merchantId;
    const store = w.t.sandbox.context.store.db;
    const card = store
      .prepare('SELECT card_id FROM transactions WHERE merchant_id = ? ORDER BY card_id LIMIT 1')
      .pluck()
      .get(merchantId) as string;
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        // The list hides the card (it drifted away), so the sync asks /cards/info for it, which
        // answers it as another merchant's.
        async listCards(query, options) {
          const page = await api.listCards(query, options);
          if (!page.records.some((c) => c.cardId === card)) return page;
          const records = page.records.filter((c) => c.cardId !== card);
          const total = page.pagination.total - 1;
          return { ...page, records, pagination: { ...page.pagination, total } };
        },
        async getCard(cardId, options) {
          const found = await api.getCard(cardId, options);
          return cardId === card ? { ...found, merchantId: 'mch_someone_else' } : found;
        },
      }),
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]!.missingCards).toMatchObject({ checked: 1, orphans: 0 });
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) FROM cards WHERE card_id = ?').pluck().get(card)).toBe(0);
      const rows = quarantineRows(w.mirrorFile, 'cards');
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ merchant_id: merchantId, record_id: card });
      expect(rows[0]!.reason).toBe(`card of merchant mch_someone_else, not ${merchantId}`);
      expect(JSON.parse(rows[0]!.raw_json)).toMatchObject({
        cardId: card,
        merchantId: 'mch_someone_else',
      });
    } finally {
      db.close();
    }
  });
});
