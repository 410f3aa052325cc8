import type { SqliteDatabase } from './sqlite-database.js';

/** The index of transactions by card (migration 001), which a first sync builds last. */
export const CARD_INDEX = 'transactions_by_card';

/**
 * The index as migration 001 creates it; SQLite stores it without `IF NOT EXISTS`, so a test
 * holds the two equal. A later migration that changes this index must say `IF EXISTS` when it
 * drops it: a first sync cut short leaves it dropped until the mirror is next opened.
 */
export const CREATE_CARD_INDEX = `CREATE INDEX IF NOT EXISTS ${CARD_INDEX} ON transactions (card_id, created_at)`;

/**
 * KiB of rows the sort that builds the index holds in memory before it writes them to a
 * temporary file (SQLite's sorter keeps up to the connection's cache size). Measured on the
 * index of 1M rows: sorted in memory (the mirror's `temp_store = MEMORY`), 1.3-1.5 s and about
 * 90 MiB more RSS, which made it the sync's peak; through files 8 MiB at a time, 0.6-0.7 s and
 * 12-19 MiB more; 2 MiB at a time, as fast and 6-8 MiB more, below the peak of the landing.
 */
const BUILD_SORT_KIB = 2_048;

/**
 * Threads SQLite's sorter may start besides the connection's own while the index is built: with
 * one, runs are sorted and written in the background while the table is read. Measured on the
 * index of 1M rows: 0.95-1.0 s against 1.2-1.5 s alone, at the same peak RSS (two threads: no
 * faster, 4 MiB more). The build runs at the end of a first sync, while the main thread mostly
 * waits on the closing audit's requests, so the second core is free.
 */
const BUILD_SORT_THREADS = 1;

/** True when the mirror has the index. */
export function hasCardIndex(db: SqliteDatabase): boolean {
  return (
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(CARD_INDEX) !==
    undefined
  );
}

/**
 * Drop the index while a first sync lands its rows, when the mirror holds no transaction yet.
 * Every row would otherwise dirty a random page of it: measured on 1M rows, the landing wrote
 * 9 GB through the WAL for a 545 MB mirror, and the first sync took 33-35 s against 21-22 s
 * with the index built once the rows were in (0.6-0.7 s of that). Readers keep working
 * meanwhile; a query by card is a scan of the table until the index is back.
 * @returns true when it was dropped: the caller builds it again ({@link ensureCardIndex}).
 */
export function dropCardIndexWhileEmpty(db: SqliteDatabase): boolean {
  if (!hasCardIndex(db)) return false;
  if (db.prepare('SELECT 1 FROM transactions LIMIT 1').get() !== undefined) return false;
  db.exec(`DROP INDEX ${CARD_INDEX}`);
  return true;
}

/**
 * Build the index if it is missing (a first sync dropped it and has landed its rows, or was cut
 * short before building it), sorting through temporary files rather than memory.
 * @returns true when it was built.
 */
export function ensureCardIndex(db: SqliteDatabase): boolean {
  if (hasCardIndex(db)) return false;
  const tempStore = db.pragma('temp_store', { simple: true }) as number;
  const cacheSize = db.pragma('cache_size', { simple: true }) as number;
  const threads = db.pragma('threads', { simple: true }) as number;
  db.pragma('temp_store = FILE');
  db.pragma(`cache_size = ${-BUILD_SORT_KIB}`);
  db.pragma(`threads = ${BUILD_SORT_THREADS}`);
  try {
    db.exec(CREATE_CARD_INDEX);
  } finally {
    db.pragma(`temp_store = ${tempStore}`);
    db.pragma(`cache_size = ${cacheSize}`);
    db.pragma(`threads = ${threads}`);
  }
  return true;
}
