import pLimit from 'p-limit';
import { MalformedRecordError, UpstreamError } from '../api/index.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { foreignCard } from './card-sync.js';
import { quarantineEntries } from './quarantine-entries.js';
import { type MerchantSyncContext, readTime } from './sync-context.js';
import type { MissingCardCounts } from './sync-result.js';
import { isoTime } from './time-range.js';

/**
 * The cards to ask about (parameters: `@runId`, `@merchantId`): those a transaction of the
 * merchant names that no list of the merchant's own cards in this run showed. A card another
 * merchant listed is asked about too: `/cards/info` answers 404 for it (ORPHAN_TRANSACTION),
 * whichever merchant was synced first. In two parts:
 *
 * - Ids the mirror holds no card for at all: the distinct card ids come from a scan of the card
 *   index alone (about 0.05 s a million transactions), each looked up in the cards' key index,
 *   which answers without reading the card's row.
 * - Cards the mirror holds that this run did not list as the merchant's (normally none; when
 *   several merchants are synced, the other merchants' cards): a scan of `cards` (about 0.01 s
 *   for 100,000).
 *
 * Each candidate is then looked up through its own entries of `transactions_by_card` for a
 * transaction of the merchant. One statement asking "is there a card listed by this run" of
 * every card id read each card's row: 0.25 s at a million transactions against 0.09 s for the
 * two parts. Every lookup names its index rather than leave it to the query planner: without
 * statistics (a mirror that was only ever synced by an older cardsync, never reconciled) SQLite
 * chose the merchant's time index for the transaction lookup, scanning every transaction of
 * the merchant for each card (268 s for 10,000 cards against 150,000 transactions). Nothing is
 * held in memory but the answer.
 */
export const CARDS_TO_ASK = `
SELECT d.card_id AS cardId
FROM (SELECT DISTINCT card_id FROM transactions INDEXED BY transactions_by_card) d
WHERE NOT EXISTS (SELECT 1 FROM cards c INDEXED BY sqlite_autoindex_cards_1
                  WHERE c.card_id = d.card_id)
  AND EXISTS (SELECT 1 FROM transactions t INDEXED BY transactions_by_card
              WHERE t.card_id = d.card_id AND t.merchant_id = @merchantId)
UNION ALL
SELECT c.card_id
FROM cards c
WHERE (c.last_seen_run_id <> @runId OR c.merchant_id <> @merchantId)
  AND EXISTS (SELECT 1 FROM transactions t INDEXED BY transactions_by_card
              WHERE t.card_id = c.card_id AND t.merchant_id = @merchantId)`;

/** The ids {@link CARDS_TO_ASK} gives for `merchantId` in run `runId`. */
export function cardsToAsk(db: SqliteDatabase, runId: string, merchantId: string): string[] {
  // Sorted here: an ORDER BY made SQLite read the cards in key order, one row at a time.
  return (db.prepare(CARDS_TO_ASK).pluck().all({ runId, merchantId }) as string[]).sort();
}

/**
 * Ask `/cards/info` about every card a transaction names that this run's card list lacked (a
 * card an earlier list showed included): a 404 makes its transactions orphans
 * (ORPHAN_TRANSACTION); a card found after all is mirrored. A card whose record is malformed is
 * quarantined, and counted as found.
 */
export async function checkMissingCards(
  context: MerchantSyncContext,
  merchantId: string,
): Promise<MissingCardCounts> {
  const missing = cardsToAsk(context.writers.db, context.runId, merchantId);
  const result: MissingCardCounts = { outcome: 'done', checked: 0, orphans: 0 };
  const limit = pLimit(context.settings.concurrency);
  await Promise.all(
    missing.map((cardId) =>
      limit(async () => {
        if (context.signal.aborted) return;
        const write = { merchantId, runId: context.runId, observedAt: isoTime(readTime(context)) };
        try {
          const card = await context.api.getCard(cardId, { signal: context.signal });
          context.writers.atomically(() => {
            if (card.merchantId === merchantId) {
              const { conflicting = [] } = context.writers.cards.write([card], write);
              context.writers.quarantine.write(conflicting, write);
            } else context.writers.quarantine.write([foreignCard(card, merchantId)], write);
            context.writers.merchants.recordMissingCard(cardId, 'found', write);
          });
        } catch (error) {
          if (error instanceof MalformedRecordError) {
            context.writers.atomically(() => {
              context.writers.quarantine.write(quarantineEntries('cards', [error]), write);
              context.writers.merchants.recordMissingCard(cardId, 'found', write);
            });
          } else if (error instanceof UpstreamError && error.status === 404) {
            context.writers.merchants.recordMissingCard(cardId, 'not_found', write);
            result.orphans += 1;
          } else {
            throw error;
          }
        }
        result.checked += 1;
      }),
    ),
  );
  return result;
}
