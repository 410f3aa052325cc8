import type { Statement } from 'better-sqlite3';
import type { OrderKind } from '../mirror/mirror-schema.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import type { JournalEntry } from './journal-entry.js';
import type { JournaledOrder } from './order-journal.js';

/** An earlier line of the file that a row repeats: its merchantOrderNo, or its orderNo. */
export type StagingClash =
  | { readonly field: 'merchantOrderNo'; readonly line: number }
  | {
      readonly field: 'orderNo';
      readonly orderNo: string;
      /** The earlier row that carries it. */
      readonly line: number;
      readonly merchantOrderNo: string;
    };

/** A staged row whose merchantOrderNo is journaled already, and the journal's row. */
export interface JournaledCandidate {
  readonly line: number;
  readonly entry: JournalEntry;
  readonly journaled: JournaledOrder;
}

/** A new row whose orderNo a journaled order of the merchant carries already. */
export interface HeldOrderNo {
  readonly line: number;
  readonly merchantOrderNo: string;
  readonly orderNo: string;
  /** The merchantOrderNo of the journaled order. */
  readonly holder: string;
}

/** A staged row in a currency other than the merchant's. */
export interface CurrencyOutlier {
  readonly line: number;
  readonly merchantOrderNo: string;
  readonly currency: string;
}

interface FileColumns {
  readonly file_line: number;
  readonly file_merchant_order_no: string;
  readonly file_kind: OrderKind;
  readonly file_card_id: string | null;
  readonly file_offering_id: string | null;
  readonly file_amount: string | null;
  readonly file_amount_minor: number | null;
  readonly file_currency: string | null;
  readonly file_submitted_at: string;
  readonly file_order_no: string | null;
}

/**
 * Candidates compared with the journal: the rows in the merchant's currency (the others are
 * refused for that alone). `@currency` NULL when neither the mirror nor the file names one.
 */
const IN_CURRENCY = '(@currency IS NULL OR s.currency IS NULL OR s.currency = @currency)';

// The queries below join with CROSS JOIN, which SQLite reads as "the staged rows in the outer
// loop": in line order, and probing `orders` by its indexes, whatever the journal's size.

/**
 * A journal file on its way into `orders`: a TEMP table (`temp.journal_import`) that the import
 * fills as the file streams in, one row per merchantOrderNo of the file, so that repeats within
 * the file are found without holding the file in memory, and that is then held against the
 * journal and merged into it set-wise, in SQL. One import at a time per connection; `close()`
 * drops it.
 *
 * The mirror keeps TEMP tables in memory (temp_store MEMORY, open-mirror.ts), which suits the
 * reconciliation's working tables, but this one grows with the file. While it lives it is on
 * disk (temp_store FILE), so only SQLite's page cache of it is in memory: changing temp_store
 * drops every TEMP table of the connection, so only when there is none.
 */
export class ImportStaging {
  readonly #db: SqliteDatabase;
  readonly #restoreTempStore: () => void;
  readonly #firstLine: Statement<[string], number>;
  readonly #orderNoAt: Statement<[string], { line: number; merchantOrderNo: string }>;
  readonly #insertSeen: Statement<[number, string]>;
  readonly #insertCandidate: Statement<unknown[]>;

  private constructor(db: SqliteDatabase, restoreTempStore: () => void) {
    this.#db = db;
    this.#restoreTempStore = restoreTempStore;
    this.#firstLine = db
      .prepare<[string], number>('SELECT line FROM temp.journal_import WHERE merchant_order_no = ?')
      .pluck();
    this.#orderNoAt = db.prepare(
      'SELECT line, merchant_order_no AS merchantOrderNo FROM temp.journal_import WHERE order_no = ?',
    );
    // A clash with either unique column leaves the row out, and changes nothing.
    this.#insertSeen = db.prepare(
      `INSERT INTO temp.journal_import (line, merchant_order_no, candidate) VALUES (?, ?, 0)
         ON CONFLICT DO NOTHING`,
    );
    this.#insertCandidate = db.prepare(
      `INSERT INTO temp.journal_import (line, merchant_order_no, candidate, kind, card_id,
         offering_id, amount, amount_minor, currency, submitted_at, order_no)
       VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING`,
    );
  }

  /** Create the staging table on `db`, outside any transaction. */
  static open(db: SqliteDatabase): ImportStaging {
    const restoreTempStore = tempStoreOnDisk(db);
    try {
      db.exec(
        `CREATE TEMP TABLE journal_import (
           line              INTEGER PRIMARY KEY,   -- where the row starts in the file
           merchant_order_no TEXT NOT NULL UNIQUE,
           candidate         INTEGER NOT NULL,      -- 1: valid and repeating no earlier line
           kind TEXT, card_id TEXT, offering_id TEXT, amount TEXT, amount_minor INTEGER,
           currency TEXT, submitted_at TEXT,
           order_no          TEXT UNIQUE            -- candidates only
         )`,
      );
      return new ImportStaging(db, restoreTempStore);
    } catch (error) {
      restoreTempStore();
      throw error;
    }
  }

  /**
   * Stage the row of `line`: its merchantOrderNo is remembered whatever the row, and `entry`
   * (the row checked valid) becomes a candidate for the journal, unless the row repeats an
   * earlier line of the file: a merchantOrderNo (the row is then left out, whatever else it
   * repeats), or the orderNo of an earlier candidate.
   */
  stage(
    line: number,
    merchantOrderNo: string,
    entry: JournalEntry | undefined,
  ): StagingClash | undefined {
    // An empty merchantOrderNo is refused on its own, and repeats nothing.
    if (merchantOrderNo === '') return undefined;
    const staged = entry
      ? this.#insertCandidate.run(
          line,
          merchantOrderNo,
          entry.kind,
          entry.cardId,
          entry.offeringId,
          entry.amount,
          entry.amountMinor,
          entry.currency,
          entry.submittedAt,
          entry.orderNo,
        )
      : this.#insertSeen.run(line, merchantOrderNo);
    if (staged.changes === 1) return undefined;
    const first = this.#firstLine.get(merchantOrderNo);
    if (first !== undefined) return { field: 'merchantOrderNo', line: first };
    // The other unique column: the orderNo of an earlier candidate. The row is no candidate.
    const orderNo = entry?.orderNo;
    const holder = orderNo == null ? undefined : this.#orderNoAt.get(orderNo);
    if (orderNo == null || holder === undefined)
      throw new Error(`line ${line} was not staged, and repeats no earlier line`);
    this.#insertSeen.run(line, merchantOrderNo);
    return { field: 'orderNo', orderNo, ...holder };
  }

  /**
   * The currency most candidates name (on a tie, the one named first): with no currency known
   * yet, the merchant's. The first row's instead made one odd row at the head of an export
   * refuse every other row, and not itself.
   */
  commonestCurrency(): string | undefined {
    return this.#db
      .prepare<[], string>(
        `SELECT currency FROM temp.journal_import WHERE candidate = 1 AND currency IS NOT NULL
           GROUP BY currency ORDER BY count(*) DESC, min(line) LIMIT 1`,
      )
      .pluck()
      .get();
  }

  /** The candidates in another currency than `currency`, in line order. */
  currencyOutliers(currency: string): IterableIterator<CurrencyOutlier> {
    return this.#db
      .prepare<{ currency: string }, CurrencyOutlier>(
        `SELECT line, merchant_order_no AS merchantOrderNo, currency FROM temp.journal_import
           WHERE candidate = 1 AND currency <> @currency ORDER BY line`,
      )
      .iterate({ currency });
  }

  /**
   * The candidates in `currency` whose merchantOrderNo is journaled, in line order, but for those
   * imported before with every field the same: a re-import, which no rule could find at fault
   * (see journal-differences.ts), and which would otherwise be all of a re-imported file.
   */
  *journaled(merchantId: string, currency: string | undefined): Generator<JournaledCandidate> {
    const rows = this.#db
      .prepare<{ merchantId: string; currency: string | null }, JournaledOrder & FileColumns>(
        `SELECT o.*, s.line AS file_line, s.merchant_order_no AS file_merchant_order_no,
           s.kind AS file_kind, s.card_id AS file_card_id, s.offering_id AS file_offering_id,
           s.amount AS file_amount, s.amount_minor AS file_amount_minor,
           s.currency AS file_currency, s.submitted_at AS file_submitted_at,
           s.order_no AS file_order_no
         FROM temp.journal_import s CROSS JOIN main.orders o
           ON o.merchant_order_no = s.merchant_order_no
         WHERE s.candidate = 1 AND ${IN_CURRENCY}
           AND NOT (o.source = 'import' AND o.merchant_id = @merchantId AND o.kind = s.kind
             AND o.card_id IS s.card_id AND o.offering_id IS s.offering_id AND o.amount IS s.amount
             AND o.currency IS s.currency AND o.submitted_at = s.submitted_at
             AND o.order_no IS s.order_no)
         ORDER BY s.line`,
      )
      .iterate({ merchantId, currency: currency ?? null });
    for (const row of rows)
      yield {
        line: row.file_line,
        entry: {
          merchantOrderNo: row.file_merchant_order_no,
          kind: row.file_kind,
          cardId: row.file_card_id,
          offeringId: row.file_offering_id,
          amount: row.file_amount,
          amountMinor: row.file_amount_minor,
          currency: row.file_currency,
          submittedAt: row.file_submitted_at,
          orderNo: row.file_order_no,
        },
        journaled: row,
      };
  }

  /**
   * The candidates in `currency` whose orderNo a journaled order of `merchantId` carries, in line
   * order: new ones (merchantOrderNo not journaled), and those journaled without an orderNo, to
   * which the file gives one (for those journaled with one, a contradiction says more).
   */
  heldOrderNos(merchantId: string, currency: string | undefined): IterableIterator<HeldOrderNo> {
    return this.#db
      .prepare<{ merchantId: string; currency: string | null }, HeldOrderNo>(
        `SELECT s.line, s.merchant_order_no AS merchantOrderNo, s.order_no AS orderNo,
           o.merchant_order_no AS holder
         FROM temp.journal_import s CROSS JOIN main.orders o
           ON o.merchant_id = @merchantId AND o.order_no = s.order_no
             AND o.merchant_order_no <> s.merchant_order_no
         WHERE s.candidate = 1 AND ${IN_CURRENCY}
           AND NOT EXISTS (SELECT 1 FROM main.orders j
                           WHERE j.merchant_order_no = s.merchant_order_no AND j.order_no IS NOT NULL)
         ORDER BY s.line`,
      )
      .iterate({ merchantId, currency: currency ?? null });
  }

  /**
   * Journal the candidates not journaled yet, in line order, `IMPORTED` from source `import`;
   * the number journaled. `file` is the file's base name.
   */
  insertNew(origin: { merchantId: string; file: string }, at: string): number {
    return this.#db
      .prepare(
        `INSERT INTO main.orders (merchant_order_no, merchant_id, kind, card_id, offering_id,
           amount, amount_minor, currency, submitted_at, order_no, state, error_code, request_json,
           source, import_file, import_line, created_at, updated_at)
         SELECT merchant_order_no, @merchantId, kind, card_id, offering_id, amount, amount_minor,
           currency, submitted_at, order_no, 'IMPORTED', NULL, NULL, 'import', @file, line, @at, @at
         FROM temp.journal_import WHERE candidate = 1 ORDER BY line
         ON CONFLICT (merchant_order_no) DO NOTHING`,
      )
      .run({ ...origin, at }).changes;
  }

  /**
   * Give the orders of `merchantId` imported without an orderNo the one the file now gives them
   * (the books learnt it since); the number given. Run once the file is known to be sound.
   */
  fillOrderNos(merchantId: string, at: string): number {
    return this.#db
      .prepare(
        `UPDATE main.orders SET order_no = s.order_no, updated_at = @at
         FROM temp.journal_import s
         WHERE s.merchant_order_no = orders.merchant_order_no AND s.candidate = 1
           AND s.order_no IS NOT NULL AND orders.order_no IS NULL
           AND orders.source = 'import' AND orders.merchant_id = @merchantId`,
      )
      .run({ merchantId, at }).changes;
  }

  /** Drop the staging table and restore temp_store; outside any transaction. */
  close(): void {
    try {
      this.#db.exec('DROP TABLE IF EXISTS temp.journal_import');
    } finally {
      this.#restoreTempStore();
    }
  }
}

/** The staging table's page cache: half SQLite's default, plenty for its two indexes. */
const STAGING_CACHE_KIB = 8192;

/**
 * Switch the connection's TEMP tables from memory to disk, when they are in memory and there is
 * none that the switch would drop; returns what switches back.
 */
function tempStoreOnDisk(db: SqliteDatabase): () => void {
  const MEMORY = 2;
  if (db.pragma('temp_store', { simple: true }) !== MEMORY) return () => {};
  const temporary = db.prepare<[], number>('SELECT count(*) FROM temp.sqlite_schema').pluck().get();
  if (temporary !== 0) return () => {};
  const cacheSize = db.pragma('temp.cache_size', { simple: true }) as number;
  db.pragma('temp_store = FILE');
  db.pragma(`temp.cache_size = ${-STAGING_CACHE_KIB}`);
  return () => {
    db.pragma('temp_store = MEMORY');
    db.pragma(`temp.cache_size = ${cacheSize}`);
  };
}
