import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CARD_INDEX, hasCardIndex } from '../../src/mirror/card-index.js';
import { readMigrations } from '../../src/mirror/migrations.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { CLI, finished, runCliProcess, unprivilegedUser } from '../support/cli-process.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type JobFixture, logLines, messageLines, startJobFixture } from './job-fixture.js';

/**
 * Run the CLI with its files limited to `kib` KiB (RLIMIT_FSIZE, `ulimit -f`, which counts
 * 512-byte blocks in a POSIX sh): a write past it fails with EFBIG (node ignores SIGXFSZ), as a
 * write to a full disk fails with ENOSPC. The mirror's WAL is the file that grows.
 */
async function runLimited(args: readonly string[], env: Record<string, string>, kib: number) {
  const child = spawn(
    'sh',
    ['-c', `ulimit -f ${kib * 2} && exec "$0" "$@"`, process.execPath, CLI, ...args],
    { env: { ...process.env, ...env }, stdio: 'pipe' },
  );
  return finished(child);
}

/** Room for the run's first commits (pages of 16 KiB), not for the world's whole history. */
const LIMIT_KIB = 800;

/** `PRAGMA integrity_check` of the mirror: `['ok']` when it is intact. */
function integrity(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma('integrity_check', { simple: false }) as unknown as string[];
  } finally {
    db.close();
  }
}

/** The transactions the mirror holds. */
function transactionCount(file: string): number {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM transactions').pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The failed runs' rows: how the mirror recorded them. */
function lastRun(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare('SELECT command, outcome, exit_code AS exitCode FROM sync_runs ORDER BY rowid DESC')
      .get();
  } finally {
    db.close();
  }
}

/** The rows of `sync_runs` and the holder of the lock: what a run that changed nothing leaves. */
function runRecord(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return {
      runs: db.prepare('SELECT run_id, outcome, exit_code FROM sync_runs ORDER BY rowid').all(),
      lock: db.prepare('SELECT * FROM run_lock').all(),
    };
  } finally {
    db.close();
  }
}

// An operator can fix what goes wrong with the mirror's environment (permissions, disk space, a
// damaged file): each ends with one line naming it and a code saying what to do, never
// `internal error` (exit 1 is for cardsync's own bugs) nor a stack trace.
describe('a mirror whose environment fails', () => {
  let f: JobFixture;

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'mirror-env',
      world: { cards: 20, transactions: 3000, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => f?.close());
  beforeEach(() => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${f.db}${suffix}`, { force: true });
    rmSync(f.reportsDir, { recursive: true, force: true });
  });

  it('exits 4 when the mirror cannot be written mid-sync (a full disk), and the next run completes it exactly', async () => {
    // Migrated first, so the limit bites while the sync lands its rows, not while it migrates.
    await openMirror(f.db).close();
    const limited = await runLimited(['run', '--json'], f.env, LIMIT_KIB);
    expect(limited.code, limited.stderr).toBe(4);
    expect(messageLines(limited.stderr)).toEqual([
      expect.stringMatching(
        /^cardsync: sync incomplete: cannot write the mirror .*mirror\.sqlite: disk I\/O error \(SQLITE_IOERR_WRITE\); what was landed is committed, and the next run resumes once the mirror can be written \(disk space, file size limit\)$/,
      ),
    ]);
    expect(limited.stderr).not.toMatch(/^\s+at /m);
    // Its log line names SQLite's code, without the stack of a bug.
    const unwritable = logLines<Record<string, unknown>>(limited.stderr).filter(
      (l) => l.msg === 'the mirror could not be written',
    );
    expect(unwritable).toEqual([
      expect.objectContaining({
        level: 50,
        error: { code: 'SQLITE_IOERR_WRITE', message: expect.stringContaining('disk I/O error') },
      }),
    ]);
    expect(unwritable[0]).not.toHaveProperty('err');
    expect(JSON.parse(limited.stdout)).toMatchObject({
      exitCode: 4,
      outcome: 'sync_incomplete',
      error: { code: 'SQLITE_IOERR_WRITE' },
    });
    expect(lastRun(f.db)).toEqual({ command: 'run', outcome: 'incomplete', exitCode: 4 });
    expect(integrity(f.db)).toEqual([{ integrity_check: 'ok' }]);
    // It stopped while landing the history: not all of it is in. How much landed first depends
    // on which windows finished first (a batch of several may not fit under the limit at all).
    const landed = transactionCount(f.db);
    expect(landed).toBeLessThan(
      f.t.sandbox.context.store.db
        .prepare('SELECT count(*) FROM transactions WHERE posted = 1')
        .pluck()
        .get() as number,
    );
    // Nothing reconciled: no report of a mirror the run could not finish writing.
    expect(existsSync(f.reportsDir) ? readdirSync(f.reportsDir) : []).toEqual([]);
    const again = await runLimited(['sync'], f.env, LIMIT_KIB);
    expect(again.code, again.stderr).toBe(4);

    const fixed = await runCliProcess(['run'], f.env);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(compareMirror(f.t.sandbox, f.db)).toEqual(NO_DIFFERENCES);
    expect(integrity(f.db)).toEqual([{ integrity_check: 'ok' }]);
  }, 60_000);

  it('exits 4 on a full disk, not 2 as if unopenable, when a stopped first sync left the index by card unbuilt', async () => {
    const first = await runCliProcess(['sync'], f.env);
    expect(first.code, first.stderr).toBe(0);
    // What a first sync stopped (SIGTERM, SIGKILL) before its index build leaves: rows, no index.
    const db = new Database(f.db);
    db.exec(`DROP INDEX ${CARD_INDEX}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();

    // Room for the run's own records, not for the index (about 20 pages of 16 KiB).
    const limited = await runLimited(['sync'], f.env, 64);
    expect(limited.code, limited.stderr).toBe(4);
    expect(messageLines(limited.stderr)).toEqual([
      expect.stringMatching(
        /^cardsync: sync incomplete: cannot write the mirror .*mirror\.sqlite: disk I\/O error \(SQLITE_IOERR_WRITE\); what was landed is committed/,
      ),
    ]);
    expect(integrity(f.db)).toEqual([{ integrity_check: 'ok' }]);

    const fixed = await runCliProcess(['sync'], f.env);
    expect(fixed.code, fixed.stderr).toBe(0);
    const after = openMirror(f.db, { writable: false });
    try {
      expect(hasCardIndex(after.db)).toBe(true);
    } finally {
      await after.close();
    }
  }, 60_000);

  it('exits 1 naming the full disk, not 2 as if misconfigured, when a new mirror cannot be written while it is migrated; the next run completes it', async () => {
    // Room for the first migrations of a new mirror (pages of 16 KiB), not for all of them.
    const limited = await runLimited(['sync'], f.env, 1000);
    expect(limited.code, limited.stderr).toBe(1);
    expect(messageLines(limited.stderr)).toEqual([
      expect.stringMatching(
        /^cardsync: cannot write the mirror .*mirror\.sqlite: disk I\/O error \(SQLITE_IOERR_WRITE\); free disk space or fix its permissions, then run again$/,
      ),
    ]);
    expect(integrity(f.db)).toEqual([{ integrity_check: 'ok' }]);
    const reached = new Database(f.db, { readonly: true });
    try {
      const version = reached.prepare('SELECT max(version) FROM schema_migrations').pluck().get();
      expect(version).toBeGreaterThan(1);
      expect(version).toBeLessThan(readMigrations().length);
    } finally {
      reached.close();
    }

    const fixed = await runCliProcess(['sync'], f.env);
    expect(fixed.code, fixed.stderr).toBe(0);
    expect(compareMirror(f.t.sandbox, f.db)).toEqual(NO_DIFFERENCES);
  }, 60_000);

  it('names a mirror found damaged mid-run, with what to do, instead of an internal error', async () => {
    const first = await runCliProcess(['sync'], f.env);
    expect(first.code, first.stderr).toBe(0);
    // Overwrite the root page of the transactions table: the file still opens and migrates.
    const db = new Database(f.db, { readonly: true });
    const page = db
      .prepare("SELECT min(pageno) FROM dbstat WHERE name = 'transactions'")
      .pluck()
      .get() as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.close();
    const fd = openSync(f.db, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0x5a), 0, pageSize, (page - 1) * pageSize);
    closeSync(fd);
    for (const args of [['sync'], ['run']]) {
      const result = await runCliProcess(args, f.env);
      expect(result.code, result.stderr).toBe(1);
      expect(messageLines(result.stderr)).toEqual([
        expect.stringMatching(
          /^cardsync: the mirror .*mirror\.sqlite is damaged: database disk image is malformed \(SQLITE_CORRUPT\); check it with sqlite3 .*PRAGMA integrity_check.*, then restore it from a backup or move it aside \(with its -wal and -shm files\) for the next run to sync afresh$/,
        ),
      ]);
    }
  }, 60_000);

  // Root passes every permission check: the CLI runs as nobody then, owning the test's files.
  const runAs = unprivilegedUser();
  it.skipIf(runAs === null)(
    'exits 2 naming a mirror file (or its -shm) this user cannot write, before any change (sync, run, reconcile, schedule)',
    async () => {
      const first = await runCliProcess(['sync'], f.env);
      expect(first.code, first.stderr).toBe(0);
      const user = runAs?.uid;
      const env = { ...f.env, CARDSYNC_CA_FILE: join(f.dir, 'ca.pem') };
      copyFileSync(f.env.CARDSYNC_CA_FILE!, env.CARDSYNC_CA_FILE);
      const own = () => {
        if (user === undefined) return;
        for (const path of [
          f.dir,
          ...readdirSync(f.dir, { recursive: true }).map((p) => join(f.dir, String(p))),
        ])
          chownSync(path, user, user);
      };
      own();
      const as = { ...(user === undefined ? {} : { user }), timeoutMs: 20_000 };
      const commands = [['sync'], ['run'], ['reconcile'], ['schedule', '--cron', '0 2 * * *']];
      const refusedAll = async (message: RegExp) => {
        const before = runRecord(f.db);
        for (const args of commands) {
          const result = await runCliProcess(args, env, as);
          expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
          expect(messageLines(result.stderr)).toEqual([expect.stringMatching(message)]);
          expect(runRecord(f.db)).toEqual(before);
        }
      };

      // The folder stays writable (SQLite could create its -wal and -shm files); the file is not.
      chmodSync(f.db, 0o444);
      await refusedAll(
        /^cardsync: CARDSYNC_DB: cannot write the mirror .*mirror\.sqlite: the file is read-only for this user \(EACCES\)$/,
      );
      chmodSync(f.db, 0o644);
      // A reader's connection (runRecord's, here) leaves -wal and -shm behind when it closes,
      // owned by its user and as writable as the mirror was for that user.
      chmodSync(f.db, 0o444);
      runRecord(f.db);
      chmodSync(f.db, 0o644);
      expect(existsSync(`${f.db}-shm`)).toBe(true);
      if (user !== undefined) chownSync(f.db, user, user);
      chmodSync(`${f.db}-shm`, 0o444);
      await refusedAll(
        /^cardsync: CARDSYNC_DB: cannot write the mirror .*mirror\.sqlite: the file .*mirror\.sqlite-shm is read-only for this user \(EACCES\); give this user write access to it/,
      );

      // Made writable again, the next run completes.
      own();
      chmodSync(`${f.db}-shm`, 0o644);
      const after = await runCliProcess(['sync'], env, as);
      expect(after.code, after.stderr).toBe(0);
    },
    60_000,
  );
});
