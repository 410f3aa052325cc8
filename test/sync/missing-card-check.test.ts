import { describe, expect, it } from 'vitest';
import { CardWriter } from '../../src/mirror/card-writer.js';
import { TransactionWriter } from '../../src/mirror/transaction-writer.js';
import { CARDS_TO_ASK, cardsToAsk } from '../../src/sync/missing-card-check.js';
import { card, context, transaction, useTempMirrors } from '../mirror/mirror-fixtures.js';

const temp = useTempMirrors();

const A = 'm-a';
const B = 'm-b';

/**
 * A mirror of two merchants after their first run (`run-1` listed every card), and `run-2`
 * half-way: it has listed merchant A's cards again except `a-gone`, and not yet merchant B's.
 */
function twoMerchants() {
  const mirror = temp.open();
  const cards = new CardWriter(mirror.db);
  const transactions = new TransactionWriter(mirror.db);
  const first = (merchantId: string) => context('run-1', '2026-02-01T02:00:00.000Z', merchantId);
  const second = context('run-2', '2026-02-02T02:00:00.000Z', A);
  const ofA = ['a-1', 'a-2', 'a-gone'].map((cardId) => card({ cardId, merchantId: A }));
  const ofB = ['b-1', 'b-2', 'b-3'].map((cardId) => card({ cardId, merchantId: B }));
  let written = 0;
  const named = (merchantId: string, ...cardIds: string[]) => {
    const rows = cardIds.map((cardId, i) =>
      transaction({ transactionId: `tx-${written + i}`, cardId }),
    );
    written += rows.length;
    transactions.write(rows, first(merchantId));
  };
  mirror.db.transaction(() => {
    cards.write(ofA, first(A));
    cards.write(ofB, first(B));
    named(A, 'a-1', 'a-1', 'a-2', 'a-gone', 'a-never-listed');
    // Merchant B's transactions name only its own cards, but one of merchant A's names B's b-3.
    named(B, 'b-1', 'b-2', 'b-2', 'b-3');
    named(A, 'b-3');
    cards.write(
      ofA.filter((c) => c.cardId !== 'a-gone'),
      second,
    );
  })();
  return mirror;
}

describe('cardsToAsk', () => {
  it("names the cards a merchant's transactions name that no list of this run showed", () => {
    const mirror = twoMerchants();
    // A: its card missing from this run's list, a card no list ever showed, and B's card that
    // one of A's transactions names; not B's other cards, not yet listed by this run.
    expect(cardsToAsk(mirror.db, 'run-2', A).sort()).toEqual(['a-gone', 'a-never-listed', 'b-3']);
    // B (were it synced now): its own unlisted cards; not A's cards, listed by this run.
    expect(cardsToAsk(mirror.db, 'run-2', B).sort()).toEqual(['b-1', 'b-2', 'b-3']);
    // Once the run has listed B's cards too, B has nothing left to ask.
    new CardWriter(mirror.db).write(
      ['b-1', 'b-2', 'b-3'].map((cardId) => card({ cardId, merchantId: B })),
      context('run-2', '2026-02-02T02:01:00.000Z', B),
    );
    expect(cardsToAsk(mirror.db, 'run-2', B)).toEqual([]);
    expect(cardsToAsk(mirror.db, 'run-2', A).sort()).toEqual(['a-gone', 'a-never-listed', 'b-3']);
  });

  it("still names another merchant's card that a transaction names once this run listed it", () => {
    const mirror = twoMerchants();
    // B synced first this run: b-3 is listed, as B's. /cards/info with A's key answers 404 for
    // it, so A's transaction naming it is an orphan of A whatever the order of the merchants.
    new CardWriter(mirror.db).write(
      ['b-1', 'b-2', 'b-3'].map((cardId) => card({ cardId, merchantId: B })),
      context('run-2', '2026-02-02T02:01:00.000Z', B),
    );
    expect(cardsToAsk(mirror.db, 'run-2', A)).toContain('b-3');
  });

  it('looks a card up by its own index entries, not by the merchant, even without statistics', () => {
    const mirror = twoMerchants();
    // A mirror that was only ever synced has no sqlite_stat1: the planner is on its own.
    const stats = mirror.db
      .prepare("SELECT count(*) FROM sqlite_master WHERE name = 'sqlite_stat1'")
      .pluck()
      .get();
    expect(stats).toBe(0);
    const plan = (
      mirror.db
        .prepare(`EXPLAIN QUERY PLAN ${CARDS_TO_ASK}`)
        .all({ runId: 'run-2', merchantId: A }) as {
        detail: string;
      }[]
    ).map((step) => step.detail);
    // The card ids from the card index alone, each looked up in the cards' key index without
    // reading the card; the cards read in one scan; each candidate's transactions looked up by
    // its id, never by the merchant.
    expect(plan).toContain('SCAN transactions USING COVERING INDEX transactions_by_card');
    expect(plan).toContain('SEARCH c USING COVERING INDEX sqlite_autoindex_cards_1 (card_id=?)');
    expect(plan).toContain('SCAN c');
    expect(plan.filter((step) => step.startsWith('SEARCH t'))).toEqual([
      'SEARCH t EXISTS USING INDEX transactions_by_card (card_id=?)',
      'SEARCH t EXISTS USING INDEX transactions_by_card (card_id=?)',
    ]);
    expect(plan.filter((step) => step.includes('transactions_by_time'))).toEqual([]);
  });
});
