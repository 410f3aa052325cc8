import type { Database } from '../sqlite-driver.js';

/** The better-sqlite3 handle the mirror works on. */
export type SqliteDatabase = Database;
