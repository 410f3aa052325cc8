import { accessSync, constants, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Kysely } from 'kysely';
import { makeFolders } from '../make-folders.js';
import { Database } from '../sqlite-driver.js';
import { ensureCardIndex } from './card-index.js';
import { type MigrationReport, migrateMirror } from './migrations.js';
import { MirrorError } from './mirror-error.js';
import { mirrorFailureOf } from './mirror-failure.js';
import { holderIsLive, readHolder } from './mirror-lock.js';
import type { MirrorDatabase } from './mirror-schema.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** An open mirror: the raw handle for hot write paths, kysely for typed queries. */
export interface Mirror {
  readonly file: string;
  readonly db: SqliteDatabase;
  /**
   * Kysely over the same connection, typed by mirror-schema.ts. Loaded on first use: the sync
   * and its writer thread never need it, and it costs them about 7 MiB each.
   */
  kysely(): Promise<Kysely<MirrorDatabase>>;
  readonly migration: MigrationReport;
  close(): Promise<void>;
}

/** Options of {@link openMirror}. */
export interface OpenMirrorOptions {
  /** Milliseconds a statement waits for a lock before SQLITE_BUSY (default 10 s). */
  readonly busyTimeoutMs?: number;
  /**
   * SQLite's page cache in KiB (default 16 MiB). The sync's writer thread, which inserts into
   * indexes of random keys, needs the pages it touches cached (see writer-thread.ts).
   */
  readonly cacheKiB?: number;
  /**
   * Whether the caller writes to the mirror (default true): a file or folder this user cannot
   * write is then refused before anything is read. SQLite itself would open such a file read-only
   * without a word, and fail at the first write, halfway through a command.
   */
  readonly writable?: boolean;
  /**
   * Build the index by card if a first sync dropped it and did not get to build it again (it
   * was killed): default true for a writable mirror. The sync's writer thread passes false,
   * since the sync builds it itself once its rows have landed (card-index.ts). It is left alone
   * too while a live run holds the lock: that first sync is still landing its rows and builds
   * it at its end, and a build now would hold the write lock over them.
   */
  readonly repairCardIndex?: boolean;
}

/**
 * WAL bytes after which a commit checkpoints (SQLite's default is 1,000 pages: after every
 * batch the sync lands). Each checkpoint writes back every index page the batch touched;
 * letting the WAL reach 128 MiB first writes a page touched by several batches once. Measured:
 * the 1M upsert in 32 s instead of 42 s. Every connection gets the same threshold, so the one
 * that commits most (the sync's writer thread) is the one that checkpoints; the WAL file is
 * cut back to this size afterwards.
 */
const CHECKPOINT_BYTES = 128 * 1024 * 1024;

/**
 * The page size of a new mirror (SQLite's default is 4 KiB; a mirror keeps the size it was
 * created with). The sync inserts into indexes of random keys (transaction and card ids), so
 * each row dirties a page of each; larger pages make shallower trees and fewer WAL frames for
 * the same bytes. Measured, 1M new rows landed by the transaction writer with the same cache
 * and checkpoint bytes: 27 s with 16 KiB pages, 30 s with 8 KiB, 33-37 s with 4 KiB; 32 and
 * 64 KiB were slower than 16.
 */
const NEW_MIRROR_PAGE_SIZE = 16_384;

/**
 * Open (or create) the mirror at `file`, in WAL mode so readers never block the writer nor wait
 * for it, and bring its schema up to date.
 * @throws MirrorError MIRROR_UNOPENABLE, MIRROR_FOREIGN (another application's database),
 *   MIRROR_READ_ONLY, MIRROR_TOO_NEW or MIRROR_MIGRATION_FAILED.
 */
export function openMirror(file: string, options: OpenMirrorOptions = {}): Mirror {
  let db: SqliteDatabase;
  try {
    makeFolders(dirname(file));
  } catch (error) {
    throw new MirrorError(
      'MIRROR_UNOPENABLE',
      `cannot open the mirror ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  if (options.writable !== false) refuseReadOnly(file);
  try {
    db = new Database(file);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
    // Before anything is written (WAL mode is kept in the file): a --db pointed at another
    // application's database would otherwise get the mirror's tables added to it.
    if (isForeign(db)) {
      db.close();
      throw new MirrorError(
        'MIRROR_FOREIGN',
        `${file} is not a cardsync mirror: a SQLite database with tables but no schema_migrations; choose another file`,
      );
    }
    // Only an empty file takes it: once written (and in WAL mode), the size is fixed.
    if (db.pragma('page_count', { simple: true }) === 0)
      db.pragma(`page_size = ${NEW_MIRROR_PAGE_SIZE}`);
    db.pragma('journal_mode = WAL');
  } catch (error) {
    if (error instanceof MirrorError) throw error;
    throw new MirrorError(
      'MIRROR_UNOPENABLE',
      `cannot open the mirror ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  try {
    // NORMAL is durable across process crashes in WAL mode; only a power loss may drop the
    // last commits, which the next run fetches again.
    db.pragma('synchronous = NORMAL');
    db.pragma(`cache_size = ${-(options.cacheKiB ?? 16_384)}`);
    db.pragma('temp_store = MEMORY');
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`wal_autocheckpoint = ${Math.max(1, Math.floor(CHECKPOINT_BYTES / pageSize))}`);
    db.pragma(`journal_size_limit = ${CHECKPOINT_BYTES}`);
    const migration = migrateMirror(db);
    if (options.writable !== false && options.repairCardIndex !== false && !syncAtWork(db))
      repairCardIndex(db);
    let kysely: Promise<Kysely<MirrorDatabase>> | undefined;
    return {
      file,
      db,
      kysely: () => {
        kysely ??= import('kysely').then(
          ({ Kysely, SqliteDialect }) =>
            new Kysely<MirrorDatabase>({ dialect: new SqliteDialect({ database: db }) }),
        );
        return kysely;
      },
      migration,
      close: async () => {
        if (kysely) await (await kysely).destroy();
        if (db.open) db.close();
      },
    };
  } catch (error) {
    db.close();
    if (error instanceof MirrorError) throw error;
    throw new MirrorError(
      'MIRROR_UNOPENABLE',
      `cannot open the mirror ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Build a missing index by card if the mirror can take it now. A mirror that cannot be written
 * (a full disk) or is damaged still opens: the command meets that where it writes, with its own
 * message and exit code (a sync: 4, what was landed kept), instead of exit 2 as if the file could
 * not be opened at all; the index is left for the next open or the sync's end to build.
 */
function repairCardIndex(db: SqliteDatabase): void {
  try {
    ensureCardIndex(db);
  } catch (error) {
    if (mirrorFailureOf(error) === undefined) throw error;
  }
}

/** Whether a live run holds the mirror's lock (a sync at work, perhaps a first one landing). */
function syncAtWork(db: SqliteDatabase): boolean {
  const holder = readHolder(db);
  return holder !== null && holderIsLive(holder);
}

/**
 * Throw MIRROR_READ_ONLY when this user cannot write `file`, the `-wal` and `-shm` files beside
 * it (a reader running as another user leaves them behind, owned by that user), or, since SQLite
 * creates and removes those two, its folder. access(2) asks the kernel, so root may write
 * anything, and a read-only file system is refused (EROFS).
 */
function refuseReadOnly(file: string): void {
  const folder = dirname(file);
  const paths: [string, string][] = [
    [file, 'the file is'],
    [`${file}-wal`, `the file ${file}-wal is`],
    [`${file}-shm`, `the file ${file}-shm is`],
    [folder, `its folder ${folder} is`],
  ];
  for (const [path, what] of paths) {
    if (path !== folder && !existsSync(path)) continue;
    try {
      accessSync(path, constants.W_OK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
      const why = code === 'EROFS' ? 'on a read-only file system' : 'read-only for this user';
      const hint =
        path === folder
          ? ', and SQLite keeps its -wal and -shm files beside the mirror'
          : path === file
            ? ''
            : '; give this user write access to it (it may have been left by a reader running as another user)';
      throw new MirrorError(
        'MIRROR_READ_ONLY',
        `cannot write the mirror ${file}: ${what} ${why} (${code})${hint}`,
        { cause: error },
      );
    }
  }
}

/** True for a database that holds something but was never a mirror (every mirror has schema_migrations). */
function isForeign(db: SqliteDatabase): boolean {
  const objects = db
    .prepare("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
    .all() as {
    name: string;
  }[];
  return objects.length > 0 && !objects.some((o) => o.name === 'schema_migrations');
}
