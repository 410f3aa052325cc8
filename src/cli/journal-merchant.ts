import { OrderJournal } from '../journal/order-journal.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { CARD_PAGE_SIZE } from '../sync/card-sync.js';
import { merchantOfPage } from '../sync/merchant-of-page.js';
import { UsageError } from './exit-codes.js';
import type { MerchantSession } from './merchant-session.js';

/** The merchant orders are journaled for, and its currency when a money order needs it. */
export interface JournalMerchant {
  readonly merchantId: string;
  readonly currency: string | undefined;
}

/**
 * Who the journal's rows belong to: the configured merchant id, else the merchant the first page
 * of the key's cards names, as the sync reads it (the id the sync stored for this source when one
 * of the cards carries it, else the id most of them carry), else that stored id, when the mirror
 * holds none of its cards or the page only malformed ones. A placeholder is never journaled
 * under: with none of these, it is a configuration error naming the setting to give. The
 * currency comes from the mirror (a sync, or the orders cardsync submitted; never imported
 * books), else the balance endpoint.
 */
export async function journalMerchant(
  session: MerchantSession,
  db: SqliteDatabase | undefined,
  options: { needCurrency: boolean; signal: AbortSignal },
): Promise<JournalMerchant> {
  const { merchant, api } = session;
  const call = { signal: options.signal };
  const known = db
    ?.prepare(
      `SELECT merchant_id AS merchantId,
              EXISTS (SELECT 1 FROM cards c WHERE c.merchant_id = m.merchant_id) AS carded
       FROM merchants m
       WHERE source = ? AND base_url = ? AND merchant_id NOT LIKE 'source:%'
       ORDER BY updated_at DESC LIMIT 1`,
    )
    .get(merchant.name, merchant.baseUrl) as { merchantId: string; carded: number } | undefined;
  // A stored id whose cards the mirror holds stands for the merchant this key reads only as long
  // as the key's cards do not name another, and its card list is not empty: cards are never
  // deleted, so an empty list is another merchant (a new account given the name of one the
  // mirror knows), whose orders must not be journaled under that one's id. A card of another
  // merchant at the head of the list names no one, as it does not for the sync.
  const ask = merchant.merchantId === undefined && known?.carded !== 0;
  const cards = ask ? await api.listCards({ page: 1, limit: CARD_PAGE_SIZE }, call) : null;
  const merchantId =
    merchant.merchantId ??
    (cards === null
      ? known?.merchantId
      : cards.pagination.total > 0
        ? (merchantOfPage(cards.records, known?.merchantId) ?? known?.merchantId)
        : undefined);
  if (merchantId === undefined)
    throw new UsageError(
      `CARDSYNC_MERCHANT_ID: expected the id of merchant ${merchant.name} (its upstream lists no card yet to name it); set CARDSYNC_MERCHANT_ID or merchantId in the config file`,
    );
  if (!options.needCurrency) return { merchantId, currency: undefined };
  const currency =
    (db && new OrderJournal(db).submittedCurrency(merchantId)) ??
    (await api.getMerchantBalance(call)).currency;
  return { merchantId, currency };
}
