import type { CardStatus } from '../../contract/index.js';
import type { Minor } from '../../money/decimal.js';
import type { SandboxDatabase } from './database.js';
import type { PageResult, PageWindow } from './page.js';
import { type IndexedRow, LazyRecencyIndex } from './recency-index.js';
import type { CardRecord } from './records.js';
import { StatementCache } from './statement-cache.js';

const CARD_COLUMNS = `card_id AS cardId, merchant_id AS merchantId, offering_id AS offeringId, holder_id AS holderId,
  last_four AS lastFour, status, balance_minor AS balanceMinor, currency, created_at AS createdAt,
  card_number AS cardNumber, cvv, expiry_month AS expiryMonth, expiry_year AS expiryYear`;

/** The index partitions a card belongs to: its merchant's list, and that list under its status. */
function partitions(merchantId: string, status: string): string[] {
  return [merchantId, statusPartition(merchantId, status)];
}

function statusPartition(merchantId: string, status: string): string {
  return `${merchantId}|s:${status}`;
}

/**
 * Cards, newest first by `createdAt` then id (reference-model section 1). Pages come from an
 * in-memory {@link RecencyIndex} (built on first use, kept up to date by every write through
 * this store), so a page and its total cost the same at page 1 and page 1,000 of 100,000 cards
 * instead of a `count(*)` and an `OFFSET` walk per request.
 */
export class CardStore {
  readonly #sql: StatementCache;
  readonly #index = new LazyRecencyIndex(() => this.#indexRows());

  constructor(db: SandboxDatabase) {
    this.#sql = new StatementCache(db);
  }

  /** Build the index now, so that the first page asked for does not wait for it. */
  buildIndex(): void {
    this.#index.get();
  }

  /** Forget the index (after writes that bypassed this store, or a rolled-back transaction). */
  invalidateIndex(): void {
    this.#index.invalidate();
  }

  /** Index builds and writes so far: a rollback after any of them must forget the index. */
  get indexWrites(): number {
    return this.#index.writes;
  }

  *#indexRows(): Generator<IndexedRow> {
    const rows = this.#sql
      .get(
        'SELECT rowid AS row, merchant_id AS merchantId, status, created_at AS createdAt, card_id AS id FROM cards',
      )
      .iterate() as IterableIterator<{
      row: number;
      merchantId: string;
      status: string;
      createdAt: number;
      id: string;
    }>;
    for (const r of rows)
      yield {
        row: r.row,
        createdAt: r.createdAt,
        id: r.id,
        keys: partitions(r.merchantId, r.status),
      };
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
    const result = this.#sql
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
    this.#index.forWrite()?.add({
      row: Number(result.lastInsertRowid),
      createdAt: card.createdAt,
      id: card.cardId,
      keys: partitions(card.merchantId, card.status),
    });
  }

  /** Set a card's status. */
  setStatus(cardId: string, status: CardStatus): void {
    const previous = this.#index.built
      ? (this.#sql
          .get(
            'SELECT rowid AS row, merchant_id AS merchantId, status, created_at AS createdAt FROM cards WHERE card_id = ?',
          )
          .get(cardId) as
          | { row: number; merchantId: string; status: string; createdAt: number }
          | undefined)
      : undefined;
    this.#sql.get('UPDATE cards SET status = ? WHERE card_id = ?').run(status, cardId);
    const index = previous && previous.status !== status ? this.#index.forWrite() : undefined;
    if (index && previous) {
      index.remove(previous.row, [statusPartition(previous.merchantId, previous.status)]);
      index.add({
        row: previous.row,
        createdAt: previous.createdAt,
        id: cardId,
        keys: [statusPartition(previous.merchantId, status)],
      });
    }
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
    const found = this.#index
      .get()
      .page(status ? statusPartition(merchantId, status) : merchantId, {
        offset: window.offset,
        limit: window.limit,
      });
    const rows = this.#sql.rowsByKey(
      `SELECT ${CARD_COLUMNS} FROM cards WHERE rowid = ?`,
      found.rows,
    );
    return { rows: rows as CardRecord[], total: found.total };
  }
}
