import type Database from 'better-sqlite3';

/** The better-sqlite3 handle the mirror works on. */
export type SqliteDatabase = Database.Database;
