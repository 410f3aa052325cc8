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
const PREVIOUS = 'SELECT status, balance FROM cards WHERE card_id = ?';

/**
 * Upserts card snapshots. Every card read is stamped with when it was read (`observed_at`, the
 * moment its balance is compared against); `card_history` gets a row, by trigger, only when
 * the status or balance changed.
 */
export class CardWriter {
  readonly #upsert: Statement;
  readonly #previous: Statement;

  constructor(db: SqliteDatabase) {
    this.#upsert = db.prepare(UPSERT);
    this.#previous = db.prepare(PREVIOUS);
  }

  /** Write `cards`; call inside the caller's transaction. */
  write(cards: Iterable<Card>, context: WriteContext): WriteCounts {
    const counts: WriteCounts = { inserted: 0, updated: 0, unchanged: 0 };
    for (const card of cards) {
      const previous = this.#previous.get(card.cardId) as
        | { status: string; balance: string }
        | undefined;
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
      else if (previous.status !== card.status || previous.balance !== card.balance)
        counts.updated += 1;
      else counts.unchanged += 1;
    }
    return counts;
  }
}
