import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/**
 * Run `work`, which awaits, inside one transaction on `db`: COMMIT when it resolves, ROLLBACK
 * when it throws. better-sqlite3's `db.transaction()` cannot span an await; this can, and so
 * nothing else may use the connection until it settles: whatever it ran meanwhile would join
 * this transaction, and share its fate.
 * @example
 * await inAsyncTransaction(db, 'DEFERRED', async () => {
 *   for await (const row of rows) insert.run(row);
 * });
 */
export async function inAsyncTransaction<T>(
  db: SqliteDatabase,
  mode: 'DEFERRED' | 'IMMEDIATE',
  work: () => Promise<T>,
): Promise<T> {
  db.exec(`BEGIN ${mode}`);
  try {
    const result = await work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    // SQLite has already rolled back after some errors (SQLITE_FULL, SQLITE_IOERR, ...).
    if (db.inTransaction) db.exec('ROLLBACK');
    throw error;
  }
}
