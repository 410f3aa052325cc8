import type { Statement } from 'better-sqlite3';
import type { Card } from '../contract/index.js';
import { minorColumn } from './minor-column.js';
import type { SqliteDatabase } from './sqlite-database.js';
import type { WriteContext, WriteCounts } from './transaction-writer.js';

const UPSERT = `
INSERT INTO cards (card_id, merchant_id, card_offering_id, last_four, status, balance,
  balance_minor, currency, created_at, observed_at, first_seen_at, updated_at, last_seen_run_id)
VALUES (@cardId, @merchantId, @cardOfferingId, @lastFour, @status, @balance, @balanceMinor,
  @currency, @createdAt, @observedAt, @observedAt, @observedAt, @runId)
ON CONFLICT (card_id) DO UPDATE SET
  merchant_id = excluded.merchant_id, card_offering_id = excluded.card_offering_id,
  last_four = excluded.last_four, status = excluded.status, balance = excluded.balance,
  balance_minor = excluded.balance_minor, currency = excluded.currency,
  created_at = excluded.created_at, observed_at = excluded.observed_at,
  last_seen_run_id = excluded.last_seen_run_id,
  updated_at = CASE WHEN cards.status IS NOT excluded.status OR cards.balance IS NOT excluded.balance
    THEN excluded.updated_at ELSE cards.updated_at END`;

// What the card was before the write decides the count: comparing timestamps after it cannot
// tell an insert from a re-read at the same instant (pages landing in the same millisecond, or
// a card list read again after it drifted).
/**
 * What the mirror holds of the cards of a page (ids as a JSON array), as rows of values in the
 * order of {@link StoredCard}: a third cheaper than better-sqlite3 naming every row.
 */
const PREVIOUS = `
SELECT card_id, merchant_id, card_offering_id, last_four, status, balance, currency, created_at
FROM cards WHERE card_id IN (SELECT value FROM json_each(?))`;

/** Stamp cards read again unchanged with this read, in one statement per page. */
const TOUCH = `
UPDATE cards SET observed_at = @observedAt, last_seen_run_id = @runId
WHERE card_id IN (SELECT value FROM json_each(@ids))`;

/** A card as the mirror holds it: the columns a read is compared against, in this order. */
type StoredCard = [
  cardId: string,
  merchantId: string,
  cardOfferingId: string,
  lastFour: string,
  status: string,
  balance: string,
  currency: string,
  createdAt: string,
];

/**
 * Upserts card snapshots. Every card read is stamped with when it was read (`observed_at`, the
 * moment its balance is compared against); `card_history` gets a row, by trigger, only when
 * the status or balance changed. Most cards are the same from one night to the next: those
 * are only stamped, a page's worth in one statement, which made a night's snapshot of 100,000
 * cards about four times cheaper than an upsert per card.
 */
export class CardWriter {
  readonly #upsert: Statement;
  readonly #previous: Statement;
  readonly #touch: Statement;

  constructor(db: SqliteDatabase) {
    this.#upsert = db.prepare(UPSERT);
    this.#previous = db.prepare(PREVIOUS).raw(true);
    this.#touch = db.prepare(TOUCH);
  }

  /** Write `cards`; call inside the caller's transaction. */
  write(cards: Iterable<Card>, context: WriteContext): WriteCounts {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    const page = [...cards];
    const stored = new Map(
      (this.#previous.all(JSON.stringify(page.map((card) => card.cardId))) as StoredCard[]).map(
        (row) => [row[0], row],
      ),
    );
    const unchanged: string[] = [];
    for (const card of page) {
      const previous = stored.get(card.cardId);
      if (previous !== undefined && sameCard(previous, card, context.merchantId)) {
        unchanged.push(card.cardId);
        continue;
      }
      this.#upsert.run({
        cardId: card.cardId,
        merchantId: context.merchantId,
        cardOfferingId: card.cardOfferingId,
        lastFour: card.lastFour,
        status: card.status,
        balance: card.balance,
        balanceMinor: minorColumn(card.balance, card.currency),
        currency: card.currency,
        createdAt: card.createdAt,
        observedAt: context.observedAt,
        runId: context.runId,
      });
      if (previous === undefined) counts.inserted += 1;
      else if (statusOrBalanceMoved(previous, card)) counts.updated += 1;
      else counts.unchanged += 1;
    }
    if (unchanged.length > 0) {
      this.#touch.run({
        ids: JSON.stringify(unchanged),
        observedAt: context.observedAt,
        runId: context.runId,
      });
      counts.unchanged += unchanged.length;
    }
    return counts;
  }
}

/** True when the mirror already holds every column of `card` as read. */
function sameCard(stored: StoredCard, card: Card, merchantId: string): boolean {
  const [, storedMerchant, offering, lastFour, status, balance, currency, createdAt] = stored;
  return (
    storedMerchant === merchantId &&
    offering === card.cardOfferingId &&
    lastFour === card.lastFour &&
    status === card.status &&
    balance === card.balance &&
    currency === card.currency &&
    createdAt === card.createdAt
  );
}

/** True when the card's status or balance differs from the mirror's (`card_history` gets a row). */
function statusOrBalanceMoved(stored: StoredCard, card: Card): boolean {
  const [, , , , status, balance] = stored;
  return status !== card.status || balance !== card.balance;
}
