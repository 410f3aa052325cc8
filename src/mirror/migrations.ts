import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerMigrationFunctions } from './migration-functions.js';
import { MirrorError } from './mirror-error.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** One numbered file of `sql/`, e.g. `001_mirror.sql`. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

/** What {@link migrateMirror} did. */
export interface MigrationReport {
  readonly from: number;
  readonly to: number;
  readonly applied: readonly string[];
}

const MIGRATION_FILE = /^(\d{3})_([a-z0-9_]+)\.sql$/;

/** The `sql/` folder at the package root, from `src/mirror/` and `dist/mirror/` alike. */
export const SQL_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));

/**
 * The numbered migrations in `dir`, in order. Views and example queries in the same folder
 * (files not named `NNN_name.sql`) are not migrations.
 */
export function readMigrations(dir: string = SQL_DIR): Migration[] {
  const migrations = readdirSync(dir)
    .map((file) => ({ file, match: MIGRATION_FILE.exec(file) }))
    .filter((entry) => entry.match !== null)
    .map(({ file, match }) => ({
      version: Number(match?.[1]),
      name: match?.[2] ?? file,
      sql: readFileSync(join(dir, file), 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new Error(`sql/: migration ${index + 1} is missing (found ${migration.version})`);
  });
  return migrations;
}

const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/** The highest migration applied to `db`, 0 for a new file. */
export function schemaVersion(db: SqliteDatabase): number {
  const row = db.prepare('SELECT max(version) AS version FROM schema_migrations').get() as {
    version: number | null;
  };
  return row.version ?? 0;
}

/**
 * Bring `db` up to the newest migration, each in its own transaction.
 * @throws MirrorError MIRROR_TOO_NEW when the file was written by a newer cardsync, and
 *   MIRROR_MIGRATION_FAILED when a migration fails (that migration is rolled back).
 */
export function migrateMirror(
  db: SqliteDatabase,
  migrations: readonly Migration[] = readMigrations(),
  now: () => string = () => new Date().toISOString(),
): MigrationReport {
  db.exec(VERSION_TABLE);
  const from = schemaVersion(db);
  const newest = migrations.at(-1)?.version ?? 0;
  if (from > newest)
    throw new MirrorError(
      'MIRROR_TOO_NEW',
      `the mirror has schema version ${from}, newer than this cardsync knows (${newest}); upgrade cardsync`,
    );
  const applied: string[] = [];
  registerMigrationFunctions(db);
  // A migration that rebuilds a table (008: create the new one, copy, drop the old, rename the
  // new) renames it over the old name. SQLite since 3.26 checks every view at such a rename, so
  // an analyst's own view of the table, dangling for that moment, failed the migration and left
  // the mirror unopenable; the legacy rename leaves views alone, and theirs reads the new table.
  const legacyAlterTable = db.pragma('legacy_alter_table', { simple: true }) as number;
  db.pragma('legacy_alter_table = ON');
  try {
    for (const migration of migrations) {
      if (migration.version <= from) continue;
      let ran = false;
      try {
        // Another cardsync may open the file at the same time and migrate it first: the write lock
        // is taken before the version is read again, so its migrations are seen, not repeated.
        db.transaction(() => {
          if (schemaVersion(db) >= migration.version) return;
          const before = indexesAndTriggers(db);
          db.exec(migration.sql);
          restoreDroppedWithTheirTable(db, before, migration.sql);
          db.prepare(
            'INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)',
          ).run(migration.version, migration.name, now());
          ran = true;
        }).immediate();
      } catch (error) {
        throw new MirrorError(
          'MIRROR_MIGRATION_FAILED',
          `migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
          { cause: error },
        );
      }
      if (ran) applied.push(`${String(migration.version).padStart(3, '0')}_${migration.name}`);
    }
  } finally {
    db.pragma(`legacy_alter_table = ${legacyAlterTable}`);
  }
  return { from, to: Math.max(from, newest), applied };
}

/** An index or trigger of the mirror, as `sqlite_master` keeps it. */
interface SchemaObject {
  readonly name: string;
  readonly table: string;
  readonly sql: string;
}

/** The indexes and triggers of `db` that have SQL (not those behind a PRIMARY KEY or UNIQUE). */
function indexesAndTriggers(db: SqliteDatabase): SchemaObject[] {
  return db
    .prepare(
      `SELECT name, tbl_name AS "table", sql FROM sqlite_master
       WHERE type IN ('index', 'trigger') AND sql IS NOT NULL`,
    )
    .all() as SchemaObject[];
}

/**
 * Create again each of `before` that `sql` dropped without naming it: an index or trigger that
 * went with a table the migration rebuilt (008 drops missing_cards and renames its new copy),
 * such as one an analyst added. A migration drops an index or trigger of its own by name.
 */
function restoreDroppedWithTheirTable(
  db: SqliteDatabase,
  before: readonly SchemaObject[],
  sql: string,
): void {
  const now = new Set(indexesAndTriggers(db).map((o) => o.name));
  const tables = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?");
  const named = new Set(sql.toLowerCase().match(/[a-z0-9_]+/g));
  for (const object of before) {
    if (now.has(object.name) || named.has(object.name.toLowerCase())) continue;
    if (tables.get(object.table) !== undefined) db.exec(object.sql);
  }
}
