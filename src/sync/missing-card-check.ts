import pLimit from 'p-limit';
import { MalformedRecordError, UpstreamError } from '../api/index.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { quarantineEntries } from './quarantine-entries.js';
import type { MerchantSyncContext } from './sync-context.js';
import type { MissingCardCounts } from './sync-result.js';
import { isoTime } from './time-range.js';

/** The cards this run's lists showed, of every merchant synced so far: one pass over `cards`. */
export const LISTED_THIS_RUN = 'SELECT card_id FROM cards WHERE last_seen_run_id = ?';

/** Every card id a transaction names, each once, from the card index alone. */
export const NAMED_CARDS =
  'SELECT DISTINCT card_id FROM transactions INDEXED BY transactions_by_card';

/** Whether a transaction of the merchant names the card: through that card's index entries. */
export const NAMED_BY_MERCHANT = `SELECT 1 FROM transactions INDEXED BY transactions_by_card
  WHERE card_id = ? AND merchant_id = ? LIMIT 1`;

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

/**
 * The cards to ask about: those a transaction of `merchantId` names that no card list of this
 * run showed. Normally none; when several merchants are synced, the first ones see the later
 * ones' cards here (listed by the last run, not yet by this one), and each of those is looked up
 * through its own index entries to find whether this merchant's transactions name it. The index
 * is named, not left to the query planner: without statistics (a mirror that was only ever
 * synced, never reconciled) SQLite chose the merchant's time index for that lookup, scanning
 * every transaction of the merchant for each such card (268 s for 10,000 cards against 150,000
 * transactions). The distinct card ids come from a scan of the card index alone, about 0.1 s a
 * million rows, which SQLite cannot avoid however the merchant's cards are filtered.
 */
export function cardsToAsk(db: SqliteDatabase, runId: string, merchantId: string): string[] {
  const listed = new Set(db.prepare(LISTED_THIS_RUN).pluck().all(runId) as string[]);
  const unlisted: string[] = [];
  for (const cardId of db.prepare(NAMED_CARDS).pluck().iterate() as Iterable<string>)
    if (!listed.has(cardId)) unlisted.push(cardId);
  const namedBy = db.prepare(NAMED_BY_MERCHANT).pluck();
  return unlisted.filter((cardId) => namedBy.get(cardId, merchantId) !== undefined);
}
