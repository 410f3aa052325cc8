import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { exactSumSql } from './exact-sum-sql.js';
import { transactionEffectSql } from './transaction-effect-sql.js';

/**
 * A temporary table that several checks read: `journal`, the merchant's API orders linked to
 * their FEE records ({@link JOURNAL_TABLE}); `cardTransactions`, the merchant's transactions
 * summed per card and currency ({@link CARD_TRANSACTIONS_TABLE}); `trades`, its trades with a
 * refund or a repeated row ({@link TRADES_TABLE}).
 */
export type WorkingTable = 'journal' | 'cardTransactions' | 'trades';

/*
 * Every build reads all of one merchant's rows, so each names its table `NOT INDEXED`: a scan in
 * rowid order with a sort for the grouping. Left to itself, SQLite walks `transactions_by_time`
 * (or `transactions_by_card`, to group without sorting) and fetches each row by a random read:
 * at 1M transactions that took twice as long (measured: per-card sums 2.8 s against 1.4 s as a
 * bare grouped pass). With several merchants the scan also passes over the others' rows, which
 * costs far less than the random reads (a full scan of 1M rows is about 0.2 s). The checks that
 * read a whole merchant's transactions do the same.
 */

/** The FEE record of each `tradeNo`; only the journal's build reads it. */
const FEE_RECORDS_TABLE = 'temp.recon_fee_records';

/**
 * One row per API order of the merchant (every kind but TOPUP), `seq` being its `orders` rowid
 * (journal order), with its FEE record when it has one. `unlinkable` says why a row is not an
 * accepted order with an `orderNo`; `succeeded` is 0 for a DECLINED FEE record (the order
 * failed), 1 for any other (COMPLETED or SETTLED; or PENDING, which reference-model section 4
 * already charges), NULL without one. Checks read it through `JOURNAL_CTE` (journal-sql.ts).
 */
export const JOURNAL_TABLE = 'temp.recon_journal';

/**
 * Per card and currency, the merchant's transactions: how many (`transactions`), the sum of
 * their effects on the card's balance (`effect_high` and `effect_low`, the parts of an exact sum
 * that cannot overflow, see exact-sum-sql.ts and transaction-effect-sql.ts; NULL when no row
 * has one), how many have no known effect (`unusable`), and `visible_at`, the latest of
 * each row's earlier of `created_at` and `first_seen_at`: a balance read at or after it could
 * reflect every one of them (see `visibleAtReadSql`).
 */
export const CARD_TRANSACTIONS_TABLE = 'temp.recon_card_transactions';

/**
 * Per card and `tradeNo`, the merchant's non-DECLINED transactions, for the trades with a REFUND
 * or REVERSAL (`returns` > 0, what OVER_REFUND reads) or with two rows of one type and amount
 * (`repeats` > 0, what DUPLICATE_TRANSACTION reads). Over the PURCHASE, REFUND and REVERSAL rows:
 * `currency` (the greatest), `currencies` (how many different ones: the sums add minor units of
 * each), `purchased` and `returned` (sums of `amount_minor`, NULL when none, each in the parts
 * `_high` and `_low` of an exact sum: exact-sum-sql.ts), `returns` (how many
 * REFUND and REVERSAL rows) and `unusable` (how many with no `amount_minor`). `repeats` counts
 * the rows with an `amount_minor` beyond the first of each type, currency and amount.
 */
export const TRADES_TABLE = 'temp.recon_trades';

/** Why a journal row cannot be linked to the upstream, or NULL when it can. */
const UNLINKABLE = `CASE
    WHEN o.state = 'REJECTED' THEN 'rejected by the upstream: not an order'
    WHEN nullif(o.order_no, '') IS NULL AND o.state = 'SUBMITTED'
      THEN 'submitted, acceptance not yet known (no orderNo)'
    WHEN nullif(o.order_no, '') IS NULL THEN 'no orderNo: cannot be linked'
  END`;

/**
 * Each order's outcome is the FEE transaction whose `tradeNo` is its `orderNo`: the earliest by
 * `createdAt`, then id, should the upstream show more than one (SQLite's bare columns of the
 * `min()` row). Keyed by `trade_no`, so linking the journal is one lookup per order.
 */
const FEE_RECORDS = [
  `CREATE TABLE ${FEE_RECORDS_TABLE} (
     trade_no TEXT PRIMARY KEY, transaction_id, card_id, status, amount, amount_minor, currency,
     created_at, first_seen_at
   ) WITHOUT ROWID`,
  `INSERT INTO ${FEE_RECORDS_TABLE}
   SELECT trade_no, transaction_id, card_id, status, amount, amount_minor, currency, created_at,
          first_seen_at
   FROM (
     SELECT trade_no, transaction_id, card_id, status, amount, amount_minor, currency,
            created_at, first_seen_at, min(created_at || ' ' || transaction_id) AS first_key
     FROM transactions NOT INDEXED
     WHERE merchant_id = @merchantId AND type = 'FEE'
     GROUP BY trade_no
   )`,
];

/**
 * The merchant's orders are read by scanning `orders` in rowid order: rows sit in import order,
 * not submission order, and the journal is appended in `seq` order. Reading through
 * `orders_by_merchant` instead took 2.5 times as long.
 */
const JOURNAL = [
  `CREATE TABLE ${JOURNAL_TABLE} (
     seq INTEGER PRIMARY KEY, merchant_order_no, kind, card_id, offering_id, amount,
     amount_minor, currency, submitted_at, order_no, state, unlinkable, fee_id, fee_card_id,
     fee_status, fee_amount, fee_amount_minor, fee_currency, fee_created_at, fee_first_seen_at,
     succeeded
   )`,
  `INSERT INTO ${JOURNAL_TABLE}
   SELECT o.rowid, o.merchant_order_no, o.kind, o.card_id, o.offering_id, o.amount,
          o.amount_minor, o.currency, o.submitted_at, nullif(o.order_no, ''), o.state,
          ${UNLINKABLE},
          f.transaction_id, f.card_id, f.status, f.amount, f.amount_minor, f.currency,
          f.created_at, f.first_seen_at,
          CASE WHEN f.transaction_id IS NULL THEN NULL
               WHEN f.status = 'DECLINED' THEN 0 ELSE 1 END
   FROM orders o NOT INDEXED
   LEFT JOIN ${FEE_RECORDS_TABLE} f ON f.trade_no = nullif(o.order_no, '') AND o.state <> 'REJECTED'
   WHERE o.merchant_id = @merchantId AND o.kind <> 'TOPUP'
   ORDER BY o.rowid`,
  `DROP TABLE ${FEE_RECORDS_TABLE}`,
  // ORDER_NOT_REFLECTED looks up a card's orders by kind: without it, minutes at scale.
  'CREATE INDEX temp.recon_journal_by_card ON recon_journal (card_id, kind)',
  // CARD_BALANCE_MISMATCH looks up the order of each transaction mirrored after its card's read
  // (a first sync's whole history) by its FEE record: without it, a read of the whole journal
  // per transaction, 45 s for a card of 2,000 with 400,000 orders.
  'CREATE INDEX temp.recon_journal_by_fee ON recon_journal (fee_id) WHERE fee_id IS NOT NULL',
];

const CARD_TRANSACTIONS = [
  `CREATE TABLE ${CARD_TRANSACTIONS_TABLE} (
     card_id TEXT NOT NULL, currency TEXT NOT NULL, transactions INTEGER NOT NULL,
     effect_high INTEGER, effect_low INTEGER, unusable INTEGER NOT NULL,
     visible_at TEXT NOT NULL,
     PRIMARY KEY (card_id, currency)
   ) WITHOUT ROWID`,
  // `LIMIT -1` (no limit) keeps SQLite from flattening the subquery: each row's effect is then
  // computed once, before the sort, rather than from its raw columns after it for each part of
  // the sum. Measured at 1M transactions: 1.05 s against 1.3 s flattened (1.3 s with one sum).
  `INSERT INTO ${CARD_TRANSACTIONS_TABLE}
   SELECT card_id, currency, count(*), ${exactSumSql('effect', 'effect')}, sum(effect IS NULL),
          max(visible_at)
   FROM (
     SELECT t.card_id, t.currency, ${transactionEffectSql('t')} AS effect,
            min(t.created_at, t.first_seen_at) AS visible_at
     FROM transactions t NOT INDEXED WHERE t.merchant_id = @merchantId
     LIMIT -1
   )
   GROUP BY card_id, currency`,
];

/** One grouped pass serves both checks that look at trades, rather than a `GROUP BY` each. */
const TRADES = [
  `CREATE TABLE ${TRADES_TABLE} (
     card_id TEXT NOT NULL, trade_no TEXT NOT NULL, currency TEXT, currencies INTEGER NOT NULL,
     purchased_high INTEGER, purchased_low INTEGER, returned_high INTEGER, returned_low INTEGER,
     returns INTEGER NOT NULL,
     unusable INTEGER NOT NULL, repeats INTEGER NOT NULL, PRIMARY KEY (card_id, trade_no)
   ) WITHOUT ROWID`,
  `INSERT INTO ${TRADES_TABLE}
   SELECT card_id, trade_no,
          max(CASE WHEN type IN ('PURCHASE', 'REFUND', 'REVERSAL') THEN currency END),
          count(DISTINCT CASE WHEN type IN ('PURCHASE', 'REFUND', 'REVERSAL') THEN currency END),
          ${exactSumSql("CASE WHEN type = 'PURCHASE' THEN amount_minor END", 'purchased')},
          ${exactSumSql("CASE WHEN type IN ('REFUND', 'REVERSAL') THEN amount_minor END", 'returned')},
          sum(type IN ('REFUND', 'REVERSAL')) AS returns,
          sum(type IN ('PURCHASE', 'REFUND', 'REVERSAL') AND amount_minor IS NULL),
          -- 10.00 USD and 1000 JPY are both 1000 minor units, and no repeat of one another.
          count(amount_minor) - count(DISTINCT type || ' ' || currency || ' ' || amount_minor)
            AS repeats
   FROM transactions NOT INDEXED
   WHERE merchant_id = @merchantId AND status <> 'DECLINED'
   GROUP BY card_id, trade_no
   HAVING returns > 0 OR repeats > 0`,
];

/** Per working table, the temporary tables its build creates and the statements that build it. */
const BUILDS: Readonly<
  Record<WorkingTable, { creates: readonly string[]; statements: readonly string[] }>
> = {
  journal: {
    creates: [FEE_RECORDS_TABLE, JOURNAL_TABLE],
    statements: [...FEE_RECORDS, ...JOURNAL],
  },
  cardTransactions: { creates: [CARD_TRANSACTIONS_TABLE], statements: CARD_TRANSACTIONS },
  trades: { creates: [TRADES_TABLE], statements: TRADES },
};

/**
 * Build the working `tables` of `merchantId` and return what drops them. Call it inside the
 * read transaction of the checks, so tables and checks see one state. Linking 400,000 orders to
 * their FEE records, or summing a million transactions per card, takes seconds; done once here
 * rather than in every check that needs it, a reconciliation reads the mirror a few times
 * instead of dozens. The tables live in the connection's temp schema: the mirror is not written
 * and a sync writing meanwhile is not blocked.
 * @example
 * const drop = buildWorkingTables(db, merchantId, new Set(['journal']));
 * try { ... } finally { drop(); }
 */
export function buildWorkingTables(
  db: SqliteDatabase,
  merchantId: string,
  tables: ReadonlySet<WorkingTable>,
): () => void {
  const built: string[] = [];
  const drop = () => {
    for (const table of built.splice(0)) db.exec(`DROP TABLE IF EXISTS ${table}`);
  };
  try {
    for (const name of tables) {
      const { creates, statements } = BUILDS[name];
      for (const table of creates) db.exec(`DROP TABLE IF EXISTS ${table}`);
      built.push(...creates);
      for (const sql of statements) {
        if (sql.includes('@merchantId')) db.prepare(sql).run({ merchantId });
        else db.exec(sql);
      }
    }
  } catch (error) {
    drop();
    throw error;
  }
  return drop;
}
