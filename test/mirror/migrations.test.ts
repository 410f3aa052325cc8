import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Migration,
  migrateMirror,
  readMigrations,
  SQL_DIR,
  schemaVersion,
} from '../../src/mirror/migrations.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { mirrorErrorOf, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

function objectsOf(db: Database): { type: string; name: string }[] {
  return db
    .prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { type: string; name: string }[];
}

function rawDatabase(name = 'raw.sqlite'): Database {
  const db = new Database(join(temp.dir(), name));
  temp.defer(() => db.close());
  return db;
}

describe('readMigrations', () => {
  it('reads sql/ as consecutive versions starting at 001_mirror', () => {
    const migrations = readMigrations(SQL_DIR);
    expect(migrations.length).toBeGreaterThan(0);
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, index) => index + 1));
    expect(migrations[0]).toMatchObject({ version: 1, name: 'mirror' });
    expect(migrations[0]?.sql).toContain('CREATE TABLE transactions');
  });

  it('refuses a gap in the numbering', () => {
    writeFileSync(join(temp.dir(), '001_a.sql'), 'CREATE TABLE a (x);');
    writeFileSync(join(temp.dir(), '003_b.sql'), 'CREATE TABLE b (x);');
    expect(() => readMigrations(temp.dir())).toThrow(/migration 2 is missing/);
  });

  it('ignores views, example queries and other files not named NNN_name.sql', () => {
    writeFileSync(join(temp.dir(), '001_a.sql'), 'CREATE TABLE a (x);');
    writeFileSync(join(temp.dir(), '002_b.sql'), 'CREATE TABLE b (x);');
    writeFileSync(join(temp.dir(), 'views.sql'), 'CREATE VIEW v AS SELECT 1;');
    writeFileSync(join(temp.dir(), 'examples.sql'), 'SELECT 1;');
    writeFileSync(join(temp.dir(), 'README.md'), '# queries');
    writeFileSync(join(temp.dir(), '003_c.sql.bak'), 'garbage');
    const migrations = readMigrations(temp.dir());
    expect(migrations.map(({ version, name }) => ({ version, name }))).toEqual([
      { version: 1, name: 'a' },
      { version: 2, name: 'b' },
    ]);
  });
});

describe('migrateMirror', () => {
  it('applies every migration to a new file and records each in schema_migrations', () => {
    const known = readMigrations();
    const mirror = temp.open();
    expect(mirror.migration).toEqual({
      from: 0,
      to: known.length,
      applied: known.map((m) => `${String(m.version).padStart(3, '0')}_${m.name}`),
    });
    const rows = mirror.db
      .prepare(
        'SELECT version, name, applied_at AS appliedAt FROM schema_migrations ORDER BY version',
      )
      .all() as { version: number; name: string; appliedAt: string }[];
    expect(rows.map(({ version, name }) => ({ version, name }))).toEqual(
      known.map(({ version, name }) => ({ version, name })),
    );
    for (const row of rows) expect(row.appliedAt).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z$/);
    expect(schemaVersion(mirror.db)).toBe(known.length);
    const tables = objectsOf(mirror.db)
      .filter((o) => o.type === 'table')
      .map((o) => o.name);
    expect(tables).toEqual(expect.arrayContaining(['cards', 'transactions', 'run_lock']));
  });

  it('applies nothing when the file is already at the newest version', async () => {
    const first = temp.open();
    const before = objectsOf(first.db);
    await first.close();
    const again = temp.open();
    const newest = readMigrations().length;
    expect(again.migration).toEqual({ from: newest, to: newest, applied: [] });
    expect(objectsOf(again.db)).toEqual(before);
    const count = again.db.prepare('SELECT count(*) AS n FROM schema_migrations').get() as {
      n: number;
    };
    expect(count.n).toBe(newest);
  });

  it('applies only the migrations above the file version', () => {
    const db = rawDatabase();
    const migrations: Migration[] = [
      { version: 1, name: 'a', sql: 'CREATE TABLE a (x);' },
      { version: 2, name: 'b', sql: 'CREATE TABLE b (x);' },
    ];
    expect(migrateMirror(db, migrations.slice(0, 1)).applied).toEqual(['001_a']);
    expect(migrateMirror(db, migrations)).toEqual({ from: 1, to: 2, applied: ['002_b'] });
  });

  it('refuses with MIRROR_TOO_NEW a file from a newer cardsync and leaves it untouched', async () => {
    const mirror = temp.open();
    const newest = readMigrations().length;
    mirror.db
      .prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
      .run(newest + 1, 'from_the_future', '2030-01-01T00:00:00.000Z');
    await mirror.close();
    const file = join(temp.dir(), 'mirror.sqlite');
    const bytes = readFileSync(file);

    const error = mirrorErrorOf(() => openMirror(file), 'MIRROR_TOO_NEW');
    expect(error.message).toContain(`schema version ${newest + 1}`);

    expect(readFileSync(file).equals(bytes)).toBe(true);
    const db = new Database(file, { readonly: true });
    temp.defer(() => db.close());
    expect(schemaVersion(db)).toBe(newest + 1);
  });

  it('refuses MIRROR_TOO_NEW through migrateMirror without applying the older migrations', () => {
    const db = rawDatabase();
    migrateMirror(db, [{ version: 1, name: 'a', sql: 'CREATE TABLE a (x);' }]);
    db.prepare("INSERT INTO schema_migrations VALUES (5, 'future', 'x')").run();
    const before = objectsOf(db);
    mirrorErrorOf(
      () =>
        migrateMirror(db, [
          { version: 1, name: 'a', sql: 'CREATE TABLE a (x);' },
          { version: 2, name: 'b', sql: 'CREATE TABLE b (x);' },
        ]),
      'MIRROR_TOO_NEW',
    );
    expect(objectsOf(db)).toEqual(before);
  });

  it('applies nothing twice when another process migrates the file after this one read its version', () => {
    const file = join(temp.dir(), 'shared.sqlite');
    const setup = new Database(file);
    setup.pragma('journal_mode = WAL');
    migrateMirror(setup, readMigrations().slice(0, 3));
    setup.close();
    const other = rawDatabase('shared.sqlite');
    const mine = rawDatabase('shared.sqlite');
    // Two cardsyncs open the old file at once: the other one brings it up to date between this
    // one's reading of the version and its first migration.
    let raced = false;
    const racing = new Proxy(mine, {
      get(target, property) {
        const value = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (property === 'transaction' && !raced) {
            raced = true;
            migrateMirror(other);
          }
          return value.apply(target, args);
        };
      },
    });
    const newest = readMigrations().length;
    expect(migrateMirror(racing)).toEqual({ from: 3, to: newest, applied: [] });
    expect(raced).toBe(true);
    expect(schemaVersion(mine)).toBe(newest);
  });

  it('gives a file upgraded from every older version the schema of a new file', () => {
    const migrations = readMigrations();
    const schemaOf = (db: Database) => ({
      objects: db
        .prepare(
          `SELECT type, name, tbl_name, sql FROM sqlite_master
           WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name`,
        )
        .all(),
      columns: db
        .prepare(
          `SELECT m.name AS tbl, c.* FROM sqlite_master m, pragma_table_xinfo(m.name) c
           WHERE m.type IN ('table', 'view') ORDER BY m.name, c.cid`,
        )
        .all(),
    });
    const fresh = rawDatabase('fresh.sqlite');
    migrateMirror(fresh, migrations);
    const expected = schemaOf(fresh);
    for (let version = 1; version < migrations.length; version++) {
      const db = rawDatabase(`from-${version}.sqlite`);
      migrateMirror(db, migrations.slice(0, version));
      migrateMirror(db, migrations);
      expect(schemaOf(db), `upgraded from version ${version}`).toEqual(expected);
    }
  });

  it("migrates a version-7 file that holds an analyst's view of a table they dropped since", () => {
    const file = join(temp.dir(), 'v7.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, readMigrations().slice(0, 7));
    raw.exec(`CREATE TABLE my_scratch (card_id TEXT);
      CREATE VIEW my_scratch_cards AS SELECT card_id FROM my_scratch;
      DROP TABLE my_scratch;`);
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(schemaVersion(mirror.db)).toBe(readMigrations().length);
  });

  it("keeps an analyst's own view of missing_cards working through 008, which rebuilds it", () => {
    const file = join(temp.dir(), 'v7.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, readMigrations().slice(0, 7));
    raw
      .prepare('INSERT INTO missing_cards VALUES (?, ?, ?, ?, ?)')
      .run('card-9', 'm-1', 'not_found', '2026-03-01T02:00:00.000Z', 'run-1');
    raw.exec(`CREATE VIEW my_orphan_cards AS
      SELECT card_id, merchant_id FROM missing_cards WHERE answer = 'not_found'`);
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(mirror.migration.from).toBe(7);
    expect(schemaVersion(mirror.db)).toBe(readMigrations().length);
    expect(mirror.db.prepare('SELECT * FROM my_orphan_cards').all()).toEqual([
      { card_id: 'card-9', merchant_id: 'm-1' },
    ]);
  });

  it("keeps an analyst's own index on missing_cards through 008, which rebuilds the table", () => {
    const file = join(temp.dir(), 'v7.sqlite');
    const raw = new Database(file);
    migrateMirror(raw, readMigrations().slice(0, 7));
    raw
      .prepare('INSERT INTO missing_cards VALUES (?, ?, ?, ?, ?)')
      .run('card-9', 'm-1', 'not_found', '2026-03-01T02:00:00.000Z', 'run-1');
    raw.exec('CREATE INDEX my_missing_by_answer ON missing_cards (merchant_id, answer)');
    raw.close();

    const mirror = openMirror(file);
    temp.defer(() => mirror.close());
    expect(mirror.migration.from).toBe(7);
    expect(
      mirror.db
        .prepare("SELECT tbl_name, sql FROM sqlite_master WHERE name = 'my_missing_by_answer'")
        .all(),
    ).toEqual([
      {
        tbl_name: 'missing_cards',
        sql: 'CREATE INDEX my_missing_by_answer ON missing_cards (merchant_id, answer)',
      },
    ]);
    expect(
      mirror.db.prepare('SELECT card_id, merchant_id, answer FROM missing_cards').all(),
    ).toEqual([{ card_id: 'card-9', merchant_id: 'm-1', answer: 'not_found' }]);
  });

  it('rolls back a failing migration whole and reports MIRROR_MIGRATION_FAILED', () => {
    const db = rawDatabase();
    const migrations: Migration[] = [
      { version: 1, name: 'good', sql: 'CREATE TABLE good (x);' },
      {
        version: 2,
        name: 'bad',
        sql: 'CREATE TABLE half_done (x); INSERT INTO good VALUES (1); SELEC nonsense;',
      },
    ];
    const error = mirrorErrorOf(() => migrateMirror(db, migrations), 'MIRROR_MIGRATION_FAILED');
    expect(error.message).toContain('migration 2 (bad)');
    expect(error.cause).toBeInstanceOf(Error);
    expect(schemaVersion(db)).toBe(1);
    expect(objectsOf(db).map((o) => o.name)).toEqual(['good', 'schema_migrations']);
    expect(db.prepare('SELECT count(*) AS n FROM good').get()).toEqual({ n: 0 });
    expect(db.inTransaction).toBe(false);
  });
});
