import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { breakRecords } from '../support/malformed-records.js';
import { compareMirror } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/** The real client, with one card's record failing the contract (a status the enum lacks). */
function expiring(api: CardIssuingClient, cardId: string): SyncApi {
  return {
    ...syncApiOf(api),
    listCards: async (query, options) => {
      const page = await api.listCards(query, options);
      breakRecords(page, 'listCards', (card) =>
        card.cardId === cardId
          ? { raw: { ...card, status: 'EXPIRED' }, reason: '/status must be one of' }
          : undefined,
      );
      return page;
    },
  };
}

describe('a card that arrives malformed', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantined-card',
      world: { cards: 30, transactions: 400, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('still starts the history at its createdAt, so its oldest transactions are mirrored', async () => {
    const store = w.t.sandbox.context.store.db;
    const [oldest, next] = store
      .prepare('SELECT card_id AS id, created_at AS at FROM cards ORDER BY created_at LIMIT 2')
      .all() as { id: string; at: number }[];
    // Transactions of the oldest card made before any other card existed.
    const early = store
      .prepare(
        'SELECT transaction_id FROM transactions WHERE card_id = ? AND created_at < ? AND posted = 1 ORDER BY 1',
      )
      .pluck()
      .all(oldest!.id, next!.at) as string[];
    expect(early.length).toBeGreaterThan(0);

    const result = await w.sync({ wrapApi: (api) => expiring(api, oldest!.id) });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]!.cards.quarantined).toBe(1);
    const missing = compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions;
    expect(missing.filter((id) => early.includes(id))).toEqual([]);
  });
});
