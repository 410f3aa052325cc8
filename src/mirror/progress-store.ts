import type { SqliteDatabase } from './sqlite-database.js';

/** A closed range of `createdAt` instants, in epoch milliseconds. */
export interface StoredRange {
  readonly start: number;
  readonly end: number;
}

/**
 * The time ranges of a merchant's transactions already mirrored (`sync_progress`), as ISO text
 * for analysts and epoch milliseconds for the planner.
 */
export class ProgressStore {
  readonly #db: SqliteDatabase;

  constructor(db: SqliteDatabase) {
    this.#db = db;
  }

  /** The merchant's done ranges, in order. */
  read(merchantId: string): StoredRange[] {
    const rows = this.#db
      .prepare(
        'SELECT start_at AS startAt, end_at AS endAt FROM sync_progress WHERE merchant_id = ? ORDER BY start_at',
      )
      .all(merchantId) as { startAt: string; endAt: string }[];
    return rows.map((row) => ({ start: Date.parse(row.startAt), end: Date.parse(row.endAt) }));
  }

  /** Replace the merchant's done ranges; call inside the window's transaction. */
  replace(merchantId: string, ranges: readonly StoredRange[]): void {
    this.#db.prepare('DELETE FROM sync_progress WHERE merchant_id = ?').run(merchantId);
    const insert = this.#db.prepare(
      'INSERT INTO sync_progress (merchant_id, start_at, end_at) VALUES (?, ?, ?)',
    );
    for (const range of ranges)
      insert.run(
        merchantId,
        new Date(range.start).toISOString(),
        new Date(range.end).toISOString(),
      );
  }
}
