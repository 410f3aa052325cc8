import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { syncWithJournals } from '../runner/runner-world.js';
import { runCliProcess } from '../support/cli-process.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { logLines, messageLines } from './job-fixture.js';

const KILL_HOOKS = fileURLToPath(new URL('../support/kill-at-hooks.mjs', import.meta.url));

/** What a reconciliation records and publishes, to compare before and after a stopped one. */
function recorded(db: string, reports: string) {
  const mirror = new Database(db, { readonly: true });
  try {
    return {
      reconRuns: mirror.prepare('SELECT run_id FROM recon_runs ORDER BY run_id').pluck().all(),
      findings: mirror.prepare('SELECT * FROM findings ORDER BY fingerprint').all(),
      events: mirror.prepare('SELECT count(*) FROM finding_events').pluck().get(),
      pending: mirror.prepare('SELECT count(*) FROM pending_reports').pluck().get(),
      lock: mirror.prepare('SELECT count(*) FROM run_lock').pluck().get(),
      folders: readdirSync(reports).sort(),
      latest: readlinkSync(join(reports, 'latest')),
    };
  } finally {
    mirror.close();
  }
}

describe('cardsync reconcile stopped by SIGTERM or SIGINT', () => {
  let w: SyncWorld;
  let env: Record<string, string>;
  const reports = () => join(w.dir, 'reports');
  const metrics = () => join(w.dir, 'textfile', 'reconcile.prom');

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'reconcile-stop',
      merchants: 1,
      world: { cards: 30, transactions: 200, days: 20, anomaliesPerCode: 1 },
    });
    env = {
      CARDSYNC_DB: w.mirrorFile,
      CARDSYNC_REPORTS_DIR: reports(),
      CARDSYNC_METRICS_FILE: metrics(),
    };
    await syncWithJournals(w);
    // A first reconciliation: `latest` and the findings the stopped one must leave alone.
    const first = await runCliProcess(['reconcile'], env);
    expect(first.code, first.stderr).toBe(0);
  }, 90_000);
  afterAll(async () => w?.close());

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    it(`on ${signal}, records nothing, writes no report, leaves latest, and exits 4 with its run finished line and metrics`, async () => {
      const before = recorded(w.mirrorFile, reports());
      // The signal comes while the reports folder is checked, before the mirror is opened:
      // the work that follows is synchronous, so the stop can only be seen once it yields.
      const stopped = await runCliProcess(
        ['reconcile'],
        { ...env, CARDSYNC_TEST_KILL_AT: `openSync:before:^\\.cardsync-probe-:1:${signal}` },
        { nodeArgs: ['--import', KILL_HOOKS], timeoutMs: 60_000 },
      );
      expect(stopped.code, stopped.stderr).toBe(4);
      expect(recorded(w.mirrorFile, reports())).toEqual(before);
      expect(messageLines(stopped.stderr)).toEqual([
        'cardsync: reconcile stopped (SIGTERM or SIGINT) before recording; nothing was recorded and no report was written',
      ]);
      const finished = logLines<{ msg: string; exitCode: number; outcome: string }>(
        stopped.stderr,
      ).filter((l) => l.msg === 'run finished');
      expect(finished.map((l) => [l.exitCode, l.outcome])).toEqual([[4, 'sync_incomplete']]);
      expect(readFileSync(metrics(), 'utf8')).toMatch(
        /^cardsync_last_run_exit_code\{command="reconcile",outcome="sync_incomplete"\} 4$/m,
      );
      // The next reconciliation is an ordinary one.
      const next = await runCliProcess(['reconcile'], env);
      expect(next.code, next.stderr).toBe(0);
      expect(recorded(w.mirrorFile, reports()).reconRuns).toHaveLength(before.reconRuns.length + 1);
    }, 60_000);

  it('on a signal once recording has begun, finishes: recorded, reported, latest moved, exit 0', async () => {
    const before = recorded(w.mirrorFile, reports());
    const late = await runCliProcess(
      ['reconcile', '--json'],
      { ...env, CARDSYNC_TEST_KILL_AT: 'openSync:before:^summary\\.csv$:1:SIGTERM' },
      { nodeArgs: ['--import', KILL_HOOKS], timeoutMs: 60_000 },
    );
    expect(late.code, late.stderr).toBe(0);
    const { runId } = JSON.parse(late.stdout) as { runId: string };
    const after = recorded(w.mirrorFile, reports());
    expect(after.reconRuns).toEqual([...before.reconRuns, runId].sort());
    expect(after.latest).toBe(runId);
    expect(after.pending).toBe(0);
    expect(after.lock).toBe(0);
  }, 60_000);
});
