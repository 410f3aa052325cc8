import { OrderJournal } from '../journal/order-journal.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { UsageError } from './exit-codes.js';
import type { MerchantSession } from './merchant-session.js';

/** The merchant orders are journaled for, and its currency when a money order needs it. */
export interface JournalMerchant {
  readonly merchantId: string;
  readonly currency: string | undefined;
}

/**
 * Who the journal's rows belong to: the configured merchant id, else the id the sync stored
 * for this source in the mirror (`db`, when the file exists), else the `merchantId` of the upstream's first card. A
 * placeholder is never journaled under: with none of these, it is a configuration error
 * naming the setting to give. The currency comes from the mirror (a sync, or the orders cardsync
 * submitted; never imported books), else the balance endpoint.
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
      `SELECT merchant_id AS merchantId FROM merchants
       WHERE source = ? AND base_url = ? AND merchant_id NOT LIKE 'source:%'
       ORDER BY updated_at DESC LIMIT 1`,
    )
    .get(merchant.name, merchant.baseUrl) as { merchantId: string } | undefined;
  const merchantId =
    merchant.merchantId ??
    known?.merchantId ??
    (await api.listCards({ limit: 1 }, call)).records[0]?.merchantId;
  if (merchantId === undefined)
    throw new UsageError(
      `CARDSYNC_MERCHANT_ID: expected the id of merchant ${merchant.name} (it has no card yet and the mirror does not know it); set CARDSYNC_MERCHANT_ID or merchantId in the config file`,
    );
  if (!options.needCurrency) return { merchantId, currency: undefined };
  const currency =
    (db && new OrderJournal(db).submittedCurrency(merchantId)) ??
    (await api.getMerchantBalance(call)).currency;
  return { merchantId, currency };
}
