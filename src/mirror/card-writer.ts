import type { Statement } from 'better-sqlite3';
import type { Card } from '../contract/index.js';
import { createdAtSpan, spanReadLimit } from './created-at-span.js';
import { minorColumn } from './minor-column.js';
import type { SqliteDatabase } from './sqlite-database.js';
import type { UpsertCounts, WriteContext } from './transaction-writer.js';

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
    THEN excluded.updated_at ELSE cards.updated_at END
RETURNING rowid`;

// What the card was before the write decides the count: comparing timestamps after it cannot
// tell an insert from a re-read at the same instant (pages landing in the same millisecond, or
// a card list read again after it drifted).
const STORED_COLUMNS = `rowid, card_id, merchant_id, card_offering_id, last_four, status, balance,
  currency, created_at`;

/**
 * What the mirror holds of a merchant's cards created within a span, at most `?` rows, as rows
 * of values in the order of {@link StoredCard}. A page of the list holds cards created close
 * together (a list is kept in some order of creation), and the time index reads them from
 * neighbouring pages: cheaper than a lookup by id, which is random over every card.
 */
const STORED_IN_SPAN = `
SELECT ${STORED_COLUMNS} FROM cards
WHERE merchant_id = ? AND created_at BETWEEN ? AND ? LIMIT ?`;

/** The cards of these ids (a JSON array) that {@link STORED_IN_SPAN} did not find. */
const STORED_BY_ID = `
SELECT ${STORED_COLUMNS} FROM cards WHERE card_id IN (SELECT value FROM json_each(?))`;

/** Stamp cards read again unchanged (their rowids, a JSON array) with this read. */
const TOUCH = `
UPDATE cards SET observed_at = @observedAt, last_seen_run_id = @runId
WHERE rowid IN (SELECT value FROM json_each(@rowids))`;

/** A card as the mirror holds it: its rowid, then the columns a read is compared against. */
type StoredCard = [
  rowid: number,
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
  readonly #storedInSpan: Statement;
  readonly #storedById: Statement;
  readonly #touch: Statement;

  constructor(db: SqliteDatabase) {
    this.#upsert = db.prepare(UPSERT).pluck().safeIntegers(false);
    this.#storedInSpan = db.prepare(STORED_IN_SPAN).raw(true).safeIntegers(false);
    this.#storedById = db.prepare(STORED_BY_ID).raw(true).safeIntegers(false);
    this.#touch = db.prepare(TOUCH);
  }

  /**
   * Write `cards`; call inside the caller's transaction. A card the mirror holds as another
   * merchant's is left as it is, and returned in `conflicting` for the caller to quarantine.
   */
  write(cards: Iterable<Card>, context: WriteContext): UpsertCounts {
    const counts: UpsertCounts = { inserted: 0, updated: 0, unchanged: 0 };
    const page = [...cards];
    if (page.length === 0) return counts;
    const stored = this.#stored(page, context.merchantId);
    const unchanged: number[] = [];
    for (const card of page) {
      const previous = stored.get(card.cardId);
      if (previous !== undefined && previous[2] !== context.merchantId) {
        counts.conflicting ??= [];
        counts.conflicting.push({
          resource: 'cards',
          recordId: card.cardId,
          reason: `/cardId ${card.cardId} is a card of merchant ${previous[2]} in the mirror, not of ${context.merchantId}`,
          raw: card,
        });
        continue;
      }
      if (previous !== undefined && sameCard(previous, card, context.merchantId)) {
        unchanged.push(previous[0]);
        continue;
      }
      const rowid = this.#upsert.get({
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
      }) as number;
      if (previous === undefined) counts.inserted += 1;
      else if (statusOrBalanceMoved(previous, card)) counts.updated += 1;
      else counts.unchanged += 1;
      // A later copy of the card in this page is compared with what the mirror now holds.
      stored.set(card.cardId, storedAs(rowid, card, context.merchantId));
    }
    if (unchanged.length > 0) {
      this.#touch.run({
        rowids: JSON.stringify(unchanged),
        observedAt: context.observedAt,
        runId: context.runId,
      });
      counts.unchanged += unchanged.length;
    }
    return counts;
  }

  /**
   * The mirror's cards of the page, by id: those over the span of its `createdAt`s, then by id
   * any it did not find there (new cards, a span past the read's limit, another merchant's).
   */
  #stored(page: readonly Card[], merchantId: string): Map<string, StoredCard> {
    const [first, last] = createdAtSpan(page);
    const stored = new Map<string, StoredCard>();
    const inSpan = this.#storedInSpan.all(
      merchantId,
      first,
      last,
      spanReadLimit(page.length),
    ) as StoredCard[];
    for (const row of inSpan) stored.set(row[1], row);
    const missing = page.filter((card) => !stored.has(card.cardId)).map((card) => card.cardId);
    if (missing.length > 0) {
      for (const row of this.#storedById.all(JSON.stringify(missing)) as StoredCard[]) {
        stored.set(row[1], row);
      }
    }
    return stored;
  }
}

/** `card` as the mirror holds it once written under `rowid`. */
function storedAs(rowid: number, card: Card, merchantId: string): StoredCard {
  return [
    rowid,
    card.cardId,
    merchantId,
    card.cardOfferingId,
    card.lastFour,
    card.status,
    card.balance,
    card.currency,
    card.createdAt,
  ];
}

/** True when the mirror already holds every column of `card` as read. */
function sameCard(stored: StoredCard, card: Card, merchantId: string): boolean {
  const [, , storedMerchant, offering, lastFour, status, balance, currency, createdAt] = stored;
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
  const [, , , , , status, balance] = stored;
  return status !== card.status || balance !== card.balance;
}
