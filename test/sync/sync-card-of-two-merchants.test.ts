import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import { Database } from '../../src/sqlite-driver.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { quarantineRows } from '../support/quarantine-rows.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/**
 * Merchant `reader`'s client, with the first card of its list carrying instead the id of
 * `taken`, a card of the other merchant: the same card id read under two merchants (two
 * upstreams numbering cards alike, or an upstream mixing them up).
 */
function cardIdOfTheOther(api: CardIssuingClient, taken: string): SyncApi {
  return {
    ...syncApiOf(api),
    listCards: async (query, options) => {
      const page = await api.listCards(query, options);
      if (query?.page === 1 || query?.page === undefined) {
        const [first, ...rest] = page.records;
        if (first) page.records = [{ ...first, cardId: taken, balance: '123456.78' }, ...rest];
      }
      return page;
    },
  };
}

describe('a card id that the mirror holds as another merchant’s', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 2,
      seed: 'sync-card-of-two-merchants',
      world: { cards: 20, transactions: 100, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is quarantined for the merchant that read it second, naming both, and the card stays its first merchant’s', async () => {
    expect((await w.sync()).outcome).toBe('done');
    const [a, b] = w.t.sandbox.merchants;
    const db = new Database(w.mirrorFile, { readonly: true });
    let taken: { card_id: string; balance: string };
    try {
      taken = db
        .prepare(
          'SELECT card_id, balance FROM cards WHERE merchant_id = ? ORDER BY card_id LIMIT 1',
        )
        .get(a!.merchantId) as { card_id: string; balance: string };
    } finally {
      db.close();
    }

    let made = 0;
    const result = await w.sync({
      // The harness wraps the merchants' clients in their order: the second is merchant b's.
      wrapApi: (api) => (made++ === 1 ? cardIdOfTheOther(api, taken.card_id) : syncApiOf(api)),
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[1]!.cards.quarantined).toBe(1);

    const after = new Database(w.mirrorFile, { readonly: true });
    try {
      expect(
        after
          .prepare('SELECT merchant_id, balance FROM cards WHERE card_id = ?')
          .get(taken.card_id),
      ).toEqual({ merchant_id: a!.merchantId, balance: taken.balance });
      const quarantined = quarantineRows(w.mirrorFile, 'cards');
      expect(quarantined).toHaveLength(1);
      const [row] = quarantined;
      expect(row).toMatchObject({ merchant_id: b!.merchantId, record_id: taken.card_id });
      expect(row!.reason).toContain('/cardId');
      expect(row!.reason).toContain(a!.merchantId);
      expect(JSON.parse(row!.raw_json)).toMatchObject({
        cardId: taken.card_id,
        merchantId: b!.merchantId,
        balance: '123456.78',
      });
    } finally {
      after.close();
    }

    // Merchant b never read a card of that id as its own: the next run resolves nothing.
    expect((await w.sync()).outcome).toBe('done');
    const last = new Database(w.mirrorFile, { readonly: true });
    try {
      expect(quarantineRows(w.mirrorFile, 'cards')).toMatchObject([{ resolved_at: null }]);
      expect(
        last.prepare('SELECT merchant_id FROM cards WHERE card_id = ?').get(taken.card_id),
      ).toEqual({ merchant_id: a!.merchantId });
    } finally {
      last.close();
    }
  });
});
