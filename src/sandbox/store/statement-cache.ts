import type { Statement } from 'better-sqlite3';
import type { SandboxDatabase } from './database.js';

/** Prepared statements by SQL text, so dynamic filters are prepared once per shape. */
export class StatementCache {
  readonly #db: SandboxDatabase;
  readonly #statements = new Map<string, Statement>();

  constructor(db: SandboxDatabase) {
    this.#db = db;
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
