import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { CLI, finished, runCliProcess, startCliProcess } from '../support/cli-process.js';
import { type JobFixture, messageLines, startJobFixture } from './job-fixture.js';

const KILL_HOOKS = fileURLToPath(new URL('../support/kill-at-hooks.mjs', import.meta.url));

const BUSY =
  /^cardsync: the mirror is busy: another writer held it longer than its busy timeout; try again$/;

/** Hold `file`'s write lock, as a sqlite3 shell left in BEGIN IMMEDIATE does, during `work`. */
async function whileHeld<T>(file: string, work: () => Promise<T>): Promise<T> {
  const other = new Database(file);
  other.prepare('BEGIN IMMEDIATE').run();
  try {
    return await work();
  } finally {
    other.prepare('ROLLBACK').run();
    other.close();
  }
}

describe('a mirror held by another writer past the busy timeout', () => {
  let f: JobFixture;
  let journal: string;

  beforeAll(async () => {
    f = await startJobFixture({ seed: 'busy-cli' });
    await openMirror(f.db).close();
    journal = join(f.dir, 'journal.csv');
    await writeFile(
      journal,
      'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo\n',
    );
  });
  afterAll(async () => f?.close());

  it('ends every command that writes the mirror with exit 5 and one line, not an internal error', async () => {
    const commands = [
      ['run'],
      ['sync'],
      ['reconcile'],
      ['orders', 'import', journal, '--merchant', f.merchantId],
      ['findings', 'ack', '0123456789abcdef', '--reason', 'known', '--until', '2099-01-01'],
    ];
    // Each waits out the 10 s busy timeout, so they wait side by side.
    const results = await whileHeld(f.db, () =>
      Promise.all(commands.map((args) => runCliProcess(args, f.env))),
    );
    for (const [i, result] of results.entries()) {
      expect(result.code, `${commands[i]?.join(' ')}: ${result.stderr}`).toBe(5);
      expect(messageLines(result.stderr)).toEqual([expect.stringMatching(BUSY)]);
    }
    expect(existsSync(f.reportsDir) ? readdirSync(f.reportsDir) : []).toEqual([]);
  }, 30_000);

  it('records exit 5 in sync_runs when another writer holds the mirror while the run syncs', async () => {
    // Every answer is slow, so the run waits on the upstream with its lock taken and nothing
    // being written when the other writer steps in.
    f.t.sandbox.faults.replace([{ kind: 'latency', ms: 1_500 }]);
    try {
      const run = startCliProcess(['run'], f.env);
      const reader = new Database(f.db, { readonly: true });
      try {
        await vi.waitFor(
          () =>
            expect(
              reader.prepare("SELECT 1 FROM sync_runs WHERE outcome = 'running'").get(),
            ).toBeDefined(),
          {
            timeout: 10_000,
            interval: 20,
          },
        );
      } finally {
        reader.close();
      }
      const other = new Database(f.db);
      other.prepare('BEGIN IMMEDIATE').run();
      try {
        // Held past the run's busy timeout, and let go once the sync has given up, so that it
        // can record how it ended.
        await vi.waitFor(() => expect(run.stderr()).toContain('"msg":"sync failed"'), {
          timeout: 45_000,
          interval: 50,
        });
      } finally {
        other.prepare('ROLLBACK').run();
        other.close();
      }
      expect(await run.exited(), run.stderr()).toBe(5);
      expect(messageLines(run.stderr())).toEqual([expect.stringMatching(BUSY)]);
      const mirror = new Database(f.db, { readonly: true });
      try {
        expect(
          mirror
            .prepare("SELECT outcome, exit_code AS exitCode FROM sync_runs WHERE command = 'run'")
            .all(),
        ).toEqual([{ outcome: 'incomplete', exitCode: 5 }]);
      } finally {
        mirror.close();
      }
    } finally {
      f.t.sandbox.faults.reset();
    }
  }, 75_000);

  it('ends with exit 5, not 2, when a new mirror waits on its migration', async () => {
    const fresh = join(f.dir, 'fresh.sqlite');
    const result = await whileHeld(fresh, () =>
      runCliProcess(['reconcile'], { ...f.env, CARDSYNC_DB: fresh }),
    );
    expect(result.code, result.stderr).toBe(5);
    expect(messageLines(result.stderr)).toEqual([expect.stringMatching(BUSY)]);
  }, 30_000);
});

describe('a run whose lock another run took over while it was suspended', () => {
  let f: JobFixture;
  beforeAll(async () => {
    f = await startJobFixture({ seed: 'taken-over' });
  });
  afterAll(async () => f?.close());

  it('records no reconciliation and writes no report once it resumes', async () => {
    // Suspended (Ctrl-Z, a paused VM) as its reconciliation starts, past the heartbeat's
    // staleness: the next run judges it dead and takes the lock over, as the test does here.
    const run = spawn(process.execPath, ['--import', KILL_HOOKS, CLI, 'run', '--json'], {
      env: {
        ...process.env,
        ...f.env,
        CARDSYNC_TEST_KILL_AT: 'readlinkSync:before:^latest$:1:SIGSTOP',
      },
      stdio: 'pipe',
    });
    const result = finished(run);
    await vi.waitFor(
      () => expect(readFileSync(`/proc/${run.pid}/stat`, 'utf8').split(' ')[2]).toBe('T'),
      { timeout: 20_000, interval: 20 },
    );
    const mirror = new Database(f.db);
    try {
      mirror
        .prepare(
          "UPDATE run_lock SET run_id = 'the-next-run', pid = ?, heartbeat_at = ? WHERE lock_id = 1",
        )
        .run(process.pid, new Date().toISOString());
      run.kill('SIGCONT');
      const { code, stderr } = await result;
      expect(code, stderr).toBe(5);
      expect(messageLines(stderr)).toEqual([
        'cardsync: another run took over the lock on this mirror while this one was suspended; its reconciliation was not recorded',
      ]);
      expect(mirror.prepare('SELECT run_id FROM recon_runs').all()).toEqual([]);
      expect(existsSync(f.reportsDir) ? readdirSync(f.reportsDir) : []).toEqual([]);
    } finally {
      mirror.close();
    }
  }, 40_000);
});
