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

  /** Remember what GET /cards/info said about a card the list lacked. */
  recordMissingCard(cardId: string, answer: 'not_found' | 'found', context: WriteContext): void {
    this.#db
      .prepare(
        `INSERT INTO missing_cards (card_id, merchant_id, answer, checked_at, run_id)
         VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (card_id) DO UPDATE SET answer = excluded.answer,
           checked_at = excluded.checked_at, run_id = excluded.run_id`,
      )
      .run(cardId, context.merchantId, answer, context.observedAt, context.runId);
  }
}
