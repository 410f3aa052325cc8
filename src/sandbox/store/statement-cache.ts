import type { Statement } from 'better-sqlite3';
import type { SandboxDatabase } from './database.js';

/** Prepared statements by SQL text, so dynamic filters are prepared once per shape. */
export class StatementCache {
  readonly #db: SandboxDatabase;
  readonly #statements = new Map<string, Statement>();
  readonly #readAll: (statement: Statement, keys: readonly number[]) => unknown[];

  constructor(db: SandboxDatabase) {
    this.#db = db;
    // One read transaction for a page's lookups: outside one, every statement takes and drops
    // the WAL read lock on its own, which cost more than the lookup itself.
    this.#readAll = db.transaction((statement: Statement, keys: readonly number[]) =>
      keys.map((key) => statement.get(key)),
    );
  }

  /** The row `sql` (one `?` parameter) gives for each of `keys`, in order, read together. */
  rowsByKey(sql: string, keys: readonly number[]): unknown[] {
    return this.#readAll(this.get(sql), keys);
  }

  /** The prepared statement for `sql`. */
  get(sql: string): Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
