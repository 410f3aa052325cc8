import pLimit from 'p-limit';
import { MalformedRecordError, UpstreamError } from '../api/index.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { quarantineEntries } from './quarantine-entries.js';
import type { MerchantSyncContext } from './sync-context.js';
import type { MissingCardCounts } from './sync-result.js';
import { isoTime } from './time-range.js';

/**
 * The cards to ask about (parameters: the run, the merchant): those a transaction of the
 * merchant names that no card list of this run showed. The distinct card ids come from a scan
 * of the card index alone (about 0.1 s a million transactions); each is looked up in `cards`,
 * and only those no list of this run showed (normally none; when several merchants are synced,
 * the first ones see the later ones' cards here, listed by the last run, not yet by this one)
 * are looked up through their own index entries for a transaction of the merchant. Both
 * lookups name the index rather than leave it to the query planner: without statistics (a
 * mirror that was only ever synced, never reconciled) SQLite chose the merchant's time index
 * for the second one, scanning every transaction of the merchant for each such card (268 s for
 * 10,000 cards against 150,000 transactions). Nothing is held in memory but the answer.
 */
export const CARDS_TO_ASK = `
SELECT d.card_id AS cardId
FROM (SELECT DISTINCT card_id FROM transactions INDEXED BY transactions_by_card) d
WHERE NOT EXISTS (SELECT 1 FROM cards c WHERE c.card_id = d.card_id AND c.last_seen_run_id = ?)
  AND EXISTS (SELECT 1 FROM transactions t INDEXED BY transactions_by_card
              WHERE t.card_id = d.card_id AND t.merchant_id = ?)`;

/** The ids {@link CARDS_TO_ASK} gives for `merchantId` in run `runId`. */
export function cardsToAsk(db: SqliteDatabase, runId: string, merchantId: string): string[] {
  return db.prepare(CARDS_TO_ASK).pluck().all(runId, merchantId) as string[];
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
        const write = { merchantId, runId: context.runId, observedAt: isoTime(context.clock()) };
        try {
          const card = await context.api.getCard(cardId, { signal: context.signal });
          context.writers.atomically(() => {
            if (card.merchantId === merchantId) context.writers.cards.write([card], write);
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
