import type { MerchantBalance } from '../contract/index.js';
import { minorColumn } from './minor-column.js';
import type { SqliteDatabase } from './sqlite-database.js';
import type { WriteContext } from './transaction-writer.js';

/** A configured source and the merchant it reads. */
export interface MerchantIdentity {
  readonly merchantId: string;
  readonly source: string;
  readonly baseUrl: string;
}

/** Records merchants and their balance snapshots. */
export class MerchantWriter {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** Insert or refresh the merchant row; the currency is learnt from its balance. */
  upsertMerchant(merchant: MerchantIdentity, at: string, currency?: string): void {
    this.#db
      .prepare(
        `INSERT INTO merchants (merchant_id, source, base_url, currency, first_seen_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (merchant_id) DO UPDATE SET source = excluded.source,
           base_url = excluded.base_url, currency = coalesce(excluded.currency, merchants.currency),
           updated_at = excluded.updated_at`,
      )
      .run(merchant.merchantId, merchant.source, merchant.baseUrl, currency ?? null, at, at);
  }

  /**
   * Move every row kept under `provisional` (the id a source's merchant is recorded under until
   * its first card shows its real id) to `merchantId`, in every table with a `merchant_id`
   * column. A row the real id already holds (the same synced range) wins; the provisional
   * merchant row goes.
   * @returns whether there was anything to move.
   */
  adoptMerchant(provisional: string, merchantId: string): boolean {
    const known = this.#db
      .prepare('SELECT 1 FROM merchants WHERE merchant_id = ?')
      .get(provisional);
    if (!known) return false;
    const tables = this.#db
      .prepare(
        `SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) c
         WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND c.name = 'merchant_id'
         ORDER BY m.name`,
      )
      .pluck()
      .all() as string[];
    for (const table of tables) {
      this.#db
        .prepare(`UPDATE OR IGNORE "${table}" SET merchant_id = ? WHERE merchant_id = ?`)
        .run(merchantId, provisional);
      this.#db.prepare(`DELETE FROM "${table}" WHERE merchant_id = ?`).run(provisional);
    }
    return true;
  }

  /** Add one balance snapshot. */
  addBalance(balance: MerchantBalance, context: WriteContext): void {
    this.#db
      .prepare(
        `INSERT INTO merchant_balances (merchant_id, run_id, balance, balance_minor, currency, observed_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(
        context.merchantId,
        context.runId,
        balance.balance,
        minorColumn(balance.balance, balance.currency),
        balance.currency,
        context.observedAt,
      );
  }

  /** Remember what GET /cards/info said to this merchant about a card its list lacked. */
  recordMissingCard(cardId: string, answer: 'not_found' | 'found', context: WriteContext): void {
    this.#db
      .prepare(
        `INSERT INTO missing_cards (card_id, merchant_id, answer, checked_at, run_id)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (card_id, merchant_id) DO UPDATE SET answer = excluded.answer,
           checked_at = excluded.checked_at, run_id = excluded.run_id`,
      )
      .run(cardId, context.merchantId, answer, context.observedAt, context.runId);
  }
}
