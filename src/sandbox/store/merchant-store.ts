import type { Minor } from '../../money/decimal.js';
import type { SandboxDatabase } from './database.js';
import type { MerchantRecord } from './records.js';
import { StatementCache } from './statement-cache.js';

const MERCHANT_COLUMNS =
  'merchant_id AS merchantId, name, currency, balance_minor AS balanceMinor, created_at AS createdAt';

/** Merchant accounts and their API keys. */
export class MerchantStore {
  readonly #sql: StatementCache;

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
  }

  /** One merchant, or undefined. */
  get(merchantId: string): MerchantRecord | undefined {
    return this.#sql
      .get(`SELECT ${MERCHANT_COLUMNS} FROM merchants WHERE merchant_id = ?`)
      .get(merchantId) as MerchantRecord | undefined;
  }

  /** Every merchant, oldest first. */
  list(): MerchantRecord[] {
    return this.#sql
      .get(`SELECT ${MERCHANT_COLUMNS} FROM merchants ORDER BY created_at, rowid`)
      .all() as MerchantRecord[];
  }

  /** Add a merchant. */
  insert(merchant: MerchantRecord): void {
    this.#sql
      .get(
        'INSERT INTO merchants (merchant_id, name, currency, balance_minor, created_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(
        merchant.merchantId,
        merchant.name,
        merchant.currency,
        merchant.balanceMinor,
        merchant.createdAt,
      );
  }

  /**
   * The money `merchantId` holds, exactly: its balance, what its cards hold (a card overdrawn
   * counts 0) and its ISSUE and DEPOSIT orders on their way (taken from the balance, not yet on
   * the card). Money moves between these and leaves through fees and purchases; it comes in
   * only by a top-up (or a planted movement or refund), so keeping this within 2^53 − 1 keeps
   * every balance one a number counts exactly.
   */
  heldMinor(merchantId: string): bigint {
    const statement = this.#sql.get(
      `SELECT coalesce((SELECT balance_minor FROM merchants WHERE merchant_id = @merchantId), 0)
            + coalesce((SELECT sum(max(balance_minor, 0)) FROM cards WHERE merchant_id = @merchantId), 0)
            + coalesce((SELECT sum(amount_minor) FROM orders
                        WHERE merchant_id = @merchantId AND state = 'ACCEPTED'
                          AND kind IN ('ISSUE', 'DEPOSIT')), 0) AS held`,
    );
    return statement.safeIntegers(true).pluck().get({ merchantId }) as bigint;
  }

  /** Move the merchant balance by `delta` minor units. */
  adjustBalance(merchantId: string, delta: Minor): void {
    this.#sql
      .get('UPDATE merchants SET balance_minor = balance_minor + ? WHERE merchant_id = ?')
      .run(delta, merchantId);
  }

  /** The merchant a live key belongs to. */
  merchantForKey(keyHash: string): string | undefined {
    const row = this.#sql
      .get(
        'SELECT merchant_id AS merchantId FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
      )
      .get(keyHash) as { merchantId: string } | undefined;
    return row?.merchantId;
  }

  /** Record a new live key. */
  insertKey(merchantId: string, keyHash: string, keyText: string, createdAt: number): void {
    this.#sql
      .get('INSERT INTO api_keys (key_hash, merchant_id, key_text, created_at) VALUES (?, ?, ?, ?)')
      .run(keyHash, merchantId, keyText, createdAt);
  }

  /** Revoke one key of a merchant; returns whether it was live. */
  revokeKey(merchantId: string, keyHash: string, revokedAt: number): boolean {
    const result = this.#sql
      .get(
        'UPDATE api_keys SET revoked_at = ? WHERE merchant_id = ? AND key_hash = ? AND revoked_at IS NULL',
      )
      .run(revokedAt, merchantId, keyHash);
    return result.changes > 0;
  }

  /** Revoke every live key of a merchant. */
  revokeAllKeys(merchantId: string, revokedAt: number): void {
    this.#sql
      .get('UPDATE api_keys SET revoked_at = ? WHERE merchant_id = ? AND revoked_at IS NULL')
      .run(revokedAt, merchantId);
  }

  /** The newest live key of a merchant (what the dashboard shows). */
  currentKey(merchantId: string): string | undefined {
    const row = this.#sql
      .get(
        'SELECT key_text AS keyText FROM api_keys WHERE merchant_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, rowid DESC LIMIT 1',
      )
      .get(merchantId) as { keyText: string } | undefined;
    return row?.keyText;
  }
}
