import { chmodSync, chownSync, copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess, unprivilegedUser } from '../support/cli-process.js';
import { type JobFixture, messageLines, startJobFixture } from './job-fixture.js';

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
      world: { cards: 12, transactions: 600, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => f?.close());

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
