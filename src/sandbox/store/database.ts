import { Database } from '../../sqlite-driver.js';
import { SANDBOX_INDEXES, SANDBOX_SCHEMA, SANDBOX_SCHEMA_VERSION } from './schema.js';

/** The sandbox's SQLite handle. */
export type SandboxDatabase = Database;

/**
 * Raised when a state directory cannot be served: written by an incompatible sandbox
 * (`SANDBOX_STATE_INCOMPATIBLE`), or holding a world whose generation was interrupted
 * (`SANDBOX_STATE_INCOMPLETE`).
 */
export class SandboxStateError extends Error {
  readonly code: 'SANDBOX_STATE_INCOMPATIBLE' | 'SANDBOX_STATE_INCOMPLETE';

  constructor(code: SandboxStateError['code'], message: string) {
    super(message);
    this.name = 'SandboxStateError';
    this.code = code;
  }
}

/**
 * Open (or create) the sandbox's storage: a file when `file` is given, memory otherwise.
 * @throws SandboxStateError when the file holds another schema version.
 */
export function openSandboxDatabase(file: string | undefined): SandboxDatabase {
  const db = new Database(file ?? ':memory:');
  if (file) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.exec(SANDBOX_SCHEMA);
  createIndexes(db);
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get('schema_version') as
    | { value: string }
    | undefined;
  if (!row) {
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(
      'schema_version',
      String(SANDBOX_SCHEMA_VERSION),
    );
  } else if (Number(row.value) !== SANDBOX_SCHEMA_VERSION) {
    db.close();
    throw new SandboxStateError(
      'SANDBOX_STATE_INCOMPATIBLE',
      `sandbox state has schema version ${row.value}, this build expects ${SANDBOX_SCHEMA_VERSION}`,
    );
  }
  return db;
}

/** Read a value of the `meta` table. */
export function readMeta(db: SandboxDatabase, key: string): string | undefined {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as
    | { value: string }
    | undefined;
  return row?.value;
}

/** Write a value of the `meta` table. */
export function writeMeta(db: SandboxDatabase, key: string, value: string): void {
  db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  ).run(key, value);
}

/** Build every secondary index (a no-op for those that exist). */
export function createIndexes(db: SandboxDatabase): void {
  for (const statement of SANDBOX_INDEXES) db.exec(statement);
}

/** Drop every secondary index, before a bulk load. */
export function dropIndexes(db: SandboxDatabase): void {
  for (const statement of SANDBOX_INDEXES) {
    const name = /INDEX IF NOT EXISTS (\w+)/.exec(statement)?.[1];
    if (name) db.exec(`DROP INDEX IF EXISTS ${name}`);
  }
}

/**
 * Store the transactions in `createdAt` order, after a bulk load that wrote them card by card.
 * A page is a hundred rows next to each other in time: stored in that order, they share a few
 * table pages instead of a hundred scattered ones, which halves the time to read a page's rows
 * at 1M rows. Call with the secondary indexes dropped: the copy is then a plain sort. Rows
 * posted later arrive in time order anyway. Row numbers change: rebuild anything that holds
 * them.
 */
export function storeInTimeOrder(db: SandboxDatabase): void {
  db.transaction(() => {
    db.exec(
      'CREATE TEMP TABLE transactions_in_time AS SELECT * FROM transactions ORDER BY created_at, transaction_id',
    );
    db.exec('DELETE FROM transactions');
    db.exec('INSERT INTO transactions SELECT * FROM transactions_in_time');
    db.exec('DROP TABLE transactions_in_time');
  })();
}
