import type { CardStatus } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import type { SandboxDatabase } from './database.js';
import type { PageResult, PageWindow } from './page.js';
import type { CardRecord } from './records.js';
import { StatementCache } from './statement-cache.js';

const CARD_COLUMNS = `card_id AS cardId, merchant_id AS merchantId, offering_id AS offeringId, holder_id AS holderId,
  last_four AS lastFour, status, balance_minor AS balanceMinor, currency, created_at AS createdAt,
  card_number AS cardNumber, cvv, expiry_month AS expiryMonth, expiry_year AS expiryYear`;

/** Cards, newest first by `createdAt` then id (reference-model section 1). */
export class CardStore {
  readonly #sql: StatementCache;

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
  }

  /** A card of any merchant, or undefined. */
  get(cardId: string): CardRecord | undefined {
    return this.#sql.get(`SELECT ${CARD_COLUMNS} FROM cards WHERE card_id = ?`).get(cardId) as
      | CardRecord
      | undefined;
  }

  /** A card of `merchantId`, or undefined: another merchant's card does not exist for it. */
  getOwned(merchantId: string, cardId: string): CardRecord | undefined {
    const card = this.get(cardId);
    return card && card.merchantId === merchantId ? card : undefined;
  }

  /** Add a card. */
  insert(card: CardRecord): void {
    this.#sql
      .get(
        `INSERT INTO cards (card_id, merchant_id, offering_id, holder_id, last_four, status, balance_minor, currency,
          created_at, card_number, cvv, expiry_month, expiry_year) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        card.cardId,
        card.merchantId,
        card.offeringId,
        card.holderId,
        card.lastFour,
        card.status,
        card.balanceMinor,
        card.currency,
        card.createdAt,
        card.cardNumber,
        card.cvv,
        card.expiryMonth,
        card.expiryYear,
      );
  }

  /** Set a card's status. */
  setStatus(cardId: string, status: CardStatus): void {
    this.#sql.get('UPDATE cards SET status = ? WHERE card_id = ?').run(status, cardId);
  }

  /** Move a card's balance by `delta` minor units. */
  adjustBalance(cardId: string, delta: Minor): void {
    this.#sql
      .get('UPDATE cards SET balance_minor = balance_minor + ? WHERE card_id = ?')
      .run(delta, cardId);
  }

  /** Set a card's balance. */
  setBalance(cardId: string, balance: Minor): void {
    this.#sql.get('UPDATE cards SET balance_minor = ? WHERE card_id = ?').run(balance, cardId);
  }

  /** A page of a merchant's cards, optionally of one status. */
  page(
    merchantId: string,
    status: CardStatus | undefined,
    window: PageWindow,
  ): PageResult<CardRecord> {
    const where = status ? 'merchant_id = ? AND status = ?' : 'merchant_id = ?';
    const params = status ? [merchantId, status] : [merchantId];
    const { total } = this.#sql
      .get(`SELECT count(*) AS total FROM cards WHERE ${where}`)
      .get(...params) as {
      total: number;
    };
    const rows = this.#sql
      .get(
        `SELECT ${CARD_COLUMNS} FROM cards WHERE ${where} ORDER BY created_at DESC, card_id DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, window.limit, window.offset) as CardRecord[];
    return { rows, total };
  }
}
