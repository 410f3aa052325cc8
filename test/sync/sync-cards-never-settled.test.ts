import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/**
 * A card list that never settles (its total off on every read) ends the snapshot after four
 * reads with a warning, and the run `done`: each card it read is a true read stamped with its
 * moment, and a card it missed keeps its last read and moment, which the reconciliation compares
 * as such. A missed card that a transaction names is read by itself at the end of the run.
 */
describe('a card list whose total never matches what it lists', () => {
  let w: SyncWorld;
  let hidden: string;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'cards-never-settled',
      world: { cards: 30, transactions: 300, days: 10, anomaliesPerCode: 0 },
    });
    expect((await w.sync()).outcome).toBe('done');
    hidden = w.t.sandbox.context.store.db
      .prepare('SELECT card_id FROM transactions GROUP BY card_id ORDER BY count(*) DESC LIMIT 1')
      .pluck()
      .get() as string;
  });
  afterAll(async () => w.close());

  it('ends done, and reads a card it missed that a transaction names through /cards/info', async () => {
    const mirror = w.openMirror();
    const before = mirror.db
      .prepare('SELECT observed_at FROM cards WHERE card_id = ?')
      .pluck()
      .get(hidden) as string;
    await mirror.close();
    let reads = 0;
    const asked: string[] = [];
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        listCards: async (query, options) => {
          const page = await api.listCards(query, options);
          if (query.page === 1) reads += 1;
          // One card hidden, the total as if it were not: the list never adds up.
          return { ...page, records: page.records.filter((card) => card.cardId !== hidden) };
        },
        getCard: (cardId, options) => {
          asked.push(cardId);
          return api.getCard(cardId, options);
        },
      }),
    });
    expect(result.outcome).toBe('done');
    expect(reads).toBe(4);
    expect(asked).toEqual([hidden]);
    const after = w.openMirror();
    try {
      const observed = after.db
        .prepare('SELECT observed_at FROM cards WHERE card_id = ?')
        .pluck()
        .get(hidden) as string;
      expect(observed > before).toBe(true);
    } finally {
      await after.close();
    }
  }, 120_000);
});
