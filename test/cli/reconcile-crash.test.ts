import { copyFileSync, cpSync, existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { syncWithJournals } from '../runner/runner-world.js';
import { runCliProcess } from '../support/cli-process.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { readCsv } from './job-fixture.js';

const KILL_HOOKS = fileURLToPath(new URL('../support/kill-at-hooks.mjs', import.meta.url));

/** The run before the one killed: UNJOURNALED_CARD off, so the killed run opens its findings. */
const BEFORE = ['--check', 'UNJOURNALED_CARD=off'];
/** The killed run and the one after: every check on, CARD_BALANCE_MISMATCH tolerated away. */
const AFTER = ['--tolerance', 'CARD_BALANCE_MISMATCH=1000000000'];

/** Where a reconcile is killed (kill-at-hooks.mjs), as the operator's night might end. */
const KILL_POINTS = {
  'while writing the report files': 'openSync:before:^summary\\.csv$',
  'after the report folder is in place, before the findings commit':
    'renameSync:after:^2\\d{7}T\\d{6}Z-',
  'after the findings commit, before latest is made': 'symlinkSync:before:^\\.tmp-latest-',
  'after the new link is made, before it replaces latest': 'renameSync:before:^latest$',
} as const;

/**
 * Everything a reconciliation leaves, with run ids and times replaced by the run's role
 * (`before`, `killed`, `after`), so a run that crashed can be compared with runs that did not.
 */
function leftBehind(db: string, reports: string, roles: ReadonlyMap<string, string>): unknown {
  const times = new Map<string, string>();
  const folders = readdirSync(reports)
    .filter((name) => !name.startsWith('.') && name !== 'latest')
    .sort();
  for (const folder of folders) {
    const run = readCsv(join(reports, folder, 'summary.csv')).filter((r) => r.section === 'run');
    const at = run.find((r) => r.measure === 'reconciled_at')?.value ?? '';
    times.set(at, roles.get(folder) ?? folder);
  }
  const role = (id: unknown) => (id === null ? null : (roles.get(String(id)) ?? String(id)));
  const when = (at: unknown) => (at === null ? null : (times.get(String(at)) ?? String(at)));
  const rows = (file: string) =>
    readCsv(file)
      .map((r) => `${r.fingerprint} ${r.check} ${r.state} first seen ${when(r.first_seen_at)}`)
      .sort();
  const mirror = new Database(db, { readonly: true });
  try {
    return {
      reports: Object.fromEntries(
        folders.map((folder) => [
          role(folder),
          {
            discrepancies: rows(join(reports, folder, 'discrepancies.csv')),
            resolved: rows(join(reports, folder, 'resolved.csv')),
          },
        ]),
      ),
      latest: role(readlinkSync(join(reports, 'latest'))),
      reconRuns: mirror
        .prepare('SELECT run_id, current_count, new_count, resolved_count FROM recon_runs')
        .all()
        .map((r) =>
          JSON.stringify({ ...(r as object), run_id: role((r as { run_id: string }).run_id) }),
        )
        // Two runs of one second sort by their random suffix: compare them as a set.
        .sort(),
      findings: (
        mirror
          .prepare(
            'SELECT fingerprint, state, first_seen_run_id, last_seen_run_id, resolved_run_id FROM findings ORDER BY fingerprint',
          )
          .all() as Record<string, unknown>[]
      ).map((f) =>
        [
          f.fingerprint,
          f.state,
          role(f.first_seen_run_id),
          role(f.last_seen_run_id),
          role(f.resolved_run_id),
        ].join(' '),
      ),
      events: (
        mirror.prepare('SELECT fingerprint, run_id, event FROM finding_events').all() as Record<
          string,
          unknown
        >[]
      )
        .map((e) => `${e.fingerprint} ${role(e.run_id)} ${e.event}`)
        .sort(),
    };
  } finally {
    mirror.close();
  }
}

describe('cardsync reconcile killed at any point, then run again', () => {
  let w: SyncWorld;
  let before: string;
  let n = 0;
  /** A copy of the mirror and its reports as the run `before` left them. */
  const copy = () => {
    const dir = join(w.dir, `case-${++n}`);
    cpSync(join(w.dir, 'reports'), join(dir, 'reports'), {
      recursive: true,
      verbatimSymlinks: true,
    });
    copyFileSync(w.mirrorFile, join(dir, 'mirror.sqlite'));
    // The mirror is closed: its write-ahead log was checkpointed and removed.
    expect(existsSync(`${w.mirrorFile}-wal`)).toBe(false);
    return { db: join(dir, 'mirror.sqlite'), reports: join(dir, 'reports') };
  };
  const reconcile = async (
    at: { db: string; reports: string },
    args: readonly string[],
    killAt?: string,
  ) => {
    const result = await runCliProcess(
      ['reconcile', '--json', ...args],
      {
        CARDSYNC_DB: at.db,
        CARDSYNC_REPORTS_DIR: at.reports,
        CARDSYNC_TEST_KILL_AT: killAt,
      },
      { nodeArgs: ['--import', KILL_HOOKS] },
    );
    return { ...result, runId: result.stdout ? (JSON.parse(result.stdout).runId as string) : '' };
  };
  /** What an uninterrupted night leaves: the killed run never started, or it completed. */
  let neverRan: unknown;
  let completed: unknown;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'reconcile-crash',
      merchants: 1,
      world: { cards: 40, transactions: 300, days: 20, anomaliesPerCode: 1 },
    });
    await syncWithJournals(w);
    const first = await reconcile({ db: w.mirrorFile, reports: join(w.dir, 'reports') }, BEFORE);
    expect(first.code, first.stderr).toBe(0);
    before = first.runId;

    const never = copy();
    const after = await reconcile(never, AFTER);
    expect(after.code, after.stderr).toBe(0);
    neverRan = leftBehind(
      never.db,
      never.reports,
      new Map([
        [before, 'before'],
        [after.runId, 'after'],
      ]),
    );
    const whole = copy();
    const killed = await reconcile(whole, AFTER);
    const next = await reconcile(whole, AFTER);
    expect([killed.code, next.code], killed.stderr + next.stderr).toEqual([0, 0]);
    completed = leftBehind(
      whole.db,
      whole.reports,
      new Map([
        [before, 'before'],
        [killed.runId, 'killed'],
        [next.runId, 'after'],
      ]),
    );
    // The two differ: the killed run opens findings and resolves others.
    expect(neverRan).not.toEqual(completed);
  }, 90_000);
  afterAll(async () => w?.close());

  for (const [name, killAt] of Object.entries(KILL_POINTS))
    it(`leaves, when killed ${name}, what a night without the kill leaves`, async () => {
      const at = copy();
      const killed = await reconcile(at, AFTER, killAt);
      expect(killed.code, killed.stderr).toBeNull();
      // The killed run's id: its lock is left behind, to be taken over by the next run.
      const mirror = new Database(at.db, { readonly: true });
      const { run_id: killedId } = mirror.prepare('SELECT run_id FROM run_lock').get() as {
        run_id: string;
      };
      mirror.close();
      const next = await reconcile(at, AFTER);
      expect(next.code, next.stderr).toBe(0);
      const state = leftBehind(
        at.db,
        at.reports,
        new Map([
          [before, 'before'],
          [killedId, 'killed'],
          [next.runId, 'after'],
        ]),
      );
      expect([neverRan, completed]).toContainEqual(state);
    }, 30_000);

  it('`cardsync run` killed while reconciling, run again, reports the night once: the killed run crashed, its findings never shown', async () => {
    const at = copy();
    const merchant = w.t.sandbox.merchants[0]!;
    const env = {
      CARDSYNC_BASE_URL: w.t.sandbox.baseUrl,
      CARDSYNC_API_KEY: merchant.apiKey,
      CARDSYNC_CA_FILE: w.t.sandbox.caFile,
      CARDSYNC_DB: at.db,
      CARDSYNC_REPORTS_DIR: at.reports,
    };
    const run = (killAt?: string) =>
      runCliProcess(
        ['run', '--json', ...AFTER],
        { ...env, CARDSYNC_TEST_KILL_AT: killAt },
        { nodeArgs: ['--import', KILL_HOOKS] },
      );
    const killed = await run(
      KILL_POINTS['after the report folder is in place, before the findings commit'],
    );
    expect(killed.code, killed.stderr).toBeNull();
    const next = await run();
    expect(next.code, next.stderr).toBe(0);
    const nextId = JSON.parse(next.stdout).runId as string;
    const mirror = new Database(at.db, { readonly: true });
    try {
      const runs = mirror
        .prepare("SELECT outcome FROM sync_runs WHERE command = 'run' ORDER BY started_at")
        .pluck()
        .all();
      expect(runs).toEqual(['crashed', 'done']);
      expect(mirror.prepare('SELECT run_id FROM recon_runs').pluck().all()).toEqual([
        before,
        nextId,
      ]);
    } finally {
      mirror.close();
    }
    const folders = readdirSync(at.reports).filter((n) => !n.startsWith('.') && n !== 'latest');
    expect(folders.sort()).toEqual([before, nextId].sort());
    expect(readlinkSync(join(at.reports, 'latest'))).toBe(nextId);
    const opened = readCsv(join(at.reports, nextId, 'discrepancies.csv')).filter(
      (r) => r.check === 'UNJOURNALED_CARD',
    );
    expect(opened.length).toBeGreaterThan(0);
    expect(new Set(opened.map((r) => r.state))).toEqual(new Set(['new']));
  }, 30_000);
});
