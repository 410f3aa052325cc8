import type { Statement } from 'better-sqlite3';
import type { SandboxDatabase } from './database.js';

/** Prepared statements by SQL text, so dynamic filters are prepared once per shape. */
export class StatementCache {
  readonly #db: SandboxDatabase;
  readonly #statements = new Map<string, Statement>();
  readonly #lookups = new Map<string, { statement: Statement; names: string[] }>();
  readonly #readAll: (statement: Statement, keys: readonly number[]) => unknown[];

  constructor(db: SandboxDatabase) {
    this.#db = db;
    // One read transaction for a page's lookups: outside one, every statement takes and drops
    // the WAL read lock on its own, which cost more than the lookup itself.
    this.#readAll = db.transaction((statement: Statement, keys: readonly number[]) =>
      keys.map((key) => statement.get(key)),
    );
  }

  /**
   * The row `sql` (one `?` parameter) gives for each of `keys`, in order, read together. The
   * rows come from SQLite as arrays and are named here: half the cost of better-sqlite3
   * building each object itself, for the hundred rows of every page served.
   */
  rowsByKey(sql: string, keys: readonly number[]): unknown[] {
    let lookup = this.#lookups.get(sql);
    if (!lookup) {
      const statement = this.#db.prepare(sql).raw(true);
      lookup = { statement, names: statement.columns().map((column) => column.name) };
      this.#lookups.set(sql, lookup);
    }
    const { names } = lookup;
    return (this.#readAll(lookup.statement, keys) as (unknown[] | undefined)[]).map((values) => {
      if (!values) return undefined;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) row[names[i] as string] = values[i];
      return row;
    });
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
