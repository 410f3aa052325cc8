import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireMirrorLock } from '../../src/mirror/mirror-lock.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { runCliProcess, startCliProcess } from '../support/cli-process.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { startReader, stopReader } from '../support/mirror-reader-process.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

const require = createRequire(import.meta.url);

/** The mirrored data, without the columns that say when or by which run it was read. */
function mirroredData(file: string): unknown {
  const db = new Database(file, { readonly: true });
  try {
    return {
      cards: db
        .prepare(
          'SELECT card_id, merchant_id, card_offering_id, last_four, status, balance, balance_minor, currency, created_at FROM cards ORDER BY card_id',
        )
        .all(),
      transactions: db
        .prepare(
          'SELECT transaction_id, merchant_id, card_id, trade_no, type, status, amount, amount_minor, fee, fee_minor, currency, merchant_name, created_at FROM transactions ORDER BY transaction_id',
        )
        .all(),
      offerings: db.prepare('SELECT * FROM offerings ORDER BY id').all().map(stripTimes),
      merchants: db.prepare('SELECT merchant_id, source, currency FROM merchants').all(),
      quarantine: db.prepare('SELECT count(*) AS n FROM quarantine').get(),
    };
  } finally {
    db.close();
  }
}

function stripTimes(row: unknown): unknown {
  const {
    first_seen_at: _f,
    updated_at: _u,
    last_seen_at: _l,
    ...rest
  } = row as Record<string, unknown>;
  return rest;
}

describe('cardsync sync as a process', () => {
  let w: SyncWorld;
  let env: Record<string, string>;
  let config: string;

  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-process',
      world: { cards: 500, transactions: 12_000, days: 90, anomaliesPerCode: 1 },
    });
    config = join(w.dir, 'cardsync.json');
    await writeFile(
      config,
      JSON.stringify({
        merchants: [
          {
            name: 'main',
            baseUrl: w.t.sandbox.baseUrl,
            apiKeyEnv: 'TEST_MERCHANT_KEY',
            caFile: w.t.sandbox.caFile,
          },
        ],
        sync: { concurrency: 4, maxPagesPerWindow: 3 },
      }),
    );
    env = { TEST_MERCHANT_KEY: w.t.sandbox.merchants[0]!.apiKey };
  });
  afterAll(async () => w.close());

  it('ends, after many SIGKILLs at random moments and one more run, identical to an uninterrupted sync', async () => {
    const reference = join(w.dir, 'reference.sqlite');
    const started = Date.now();
    const clean = await runCliProcess(
      ['sync', '--config', config, '--db', reference, '--json'],
      env,
    );
    expect(clean.code, clean.stderr).toBe(0);
    // Kill anywhere from start-up to the end of what a whole run takes.
    const runMs = Date.now() - started;

    const crashed = join(w.dir, 'crashed.sqlite');
    let killedMidRun = 0;
    for (let i = 0; i < 8; i++) {
      const child = startCliProcess(['sync', '--config', config, '--db', crashed], env);
      if (i % 2 === 0) {
        // Anywhere from start-up (migrations, the lock, the cards) to the end of a whole run.
        await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * runMs));
      } else {
        // Between two window commits: after a random number of new windows have landed.
        const target = windowsDone(crashed) + 1 + Math.floor(Math.random() * 6);
        for (let n = 0; n < 3000 && windowsDone(crashed) < target; n++)
          await new Promise((resolve) => setTimeout(resolve, 5));
      }
      child.child.kill('SIGKILL');
      if ((await child.exited()) === null) killedMidRun += 1;
    }
    expect(killedMidRun).toBeGreaterThanOrEqual(4);
    const last = await runCliProcess(['sync', '--config', config, '--db', crashed, '--json'], env);
    expect(last.code, last.stderr).toBe(0);

    expect(mirroredData(crashed)).toEqual(mirroredData(reference));
    expect(compareMirror(w.t.sandbox, crashed)).toEqual(NO_DIFFERENCES);
    const db = new Database(crashed, { readonly: true });
    try {
      const runs = db
        .prepare('SELECT outcome, count(*) AS n FROM sync_runs GROUP BY outcome')
        .all();
      expect(runs).toContainEqual({ outcome: 'crashed', n: expect.any(Number) });
      expect(db.prepare('SELECT count(*) AS n FROM run_lock').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  }, 120_000);

  it('stops on SIGTERM with exit 4, keeping the windows it finished, and the next run completes', async () => {
    const file = join(w.dir, 'sigterm.sqlite');
    const child = startCliProcess(['sync', '--config', config, '--db', file], env);
    // Wait until some windows have landed, then stop it.
    for (let i = 0; i < 400; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      if (windowsDone(file) > 2) break;
    }
    child.child.kill('SIGTERM');
    const code = await child.exited();
    expect(code).toBe(4);
    expect(child.stdout()).toContain('interrupted');
    const db = new Database(file, { readonly: true });
    try {
      const run = db.prepare('SELECT outcome, exit_code FROM sync_runs').get();
      expect(run).toEqual({ outcome: 'interrupted', exit_code: 4 });
      expect(db.prepare('SELECT count(*) AS n FROM run_lock').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
    const next = await runCliProcess(['sync', '--config', config, '--db', file], env);
    expect(next.code, next.stderr).toBe(0);
    expect(compareMirror(w.t.sandbox, file)).toEqual(NO_DIFFERENCES);
  }, 60_000);

  it('never makes a reader in another process fail with SQLITE_BUSY while it writes', async () => {
    const file = join(w.dir, 'read-while-written.sqlite');
    const reader = startReader(file, require.resolve('better-sqlite3'));
    const sync = await runCliProcess(['sync', '--config', config, '--db', file], env);
    const report = await stopReader(reader);
    expect(sync.code, sync.stderr).toBe(0);
    expect(report.errors).toEqual([]);
    expect(report.queries).toBeGreaterThan(20);
  }, 60_000);

  it('refuses a second writer with exit 5 while a run holds the lock, changing nothing', async () => {
    const file = join(w.dir, 'locked.sqlite');
    const mirror = openMirror(file);
    // This test process holds the lock, as a run in progress would.
    const lock = acquireMirrorLock(mirror.db, { runId: 'holding-run' });
    try {
      const second = await runCliProcess(['sync', '--config', config, '--db', file], env);
      expect(second.code).toBe(5);
      expect(second.stderr).toMatch(/holding-run.*holds the lock/);
      const runs = mirror.db.prepare('SELECT count(*) AS n FROM sync_runs').get();
      expect(runs).toEqual({ n: 0 });
    } finally {
      lock.release();
      await mirror.close();
    }
  }, 60_000);
});

function windowsDone(file: string): number {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM sync_windows').get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return 0;
  }
}
