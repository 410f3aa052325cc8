import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { acquireMirrorLock, readHolder } from '../../src/mirror/mirror-lock.js';
import type { Mirror } from '../../src/mirror/open-mirror.js';
import { DEFAULT_RECON_SETTINGS } from '../../src/recon/recon-settings.js';
import type { NightlyRunResult } from '../../src/runner/nightly-run.js';
import { runReconcile } from '../../src/runner/run-reconcile.js';
import { reopenRun } from '../../src/runner/run-record.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import {
  ANOMALOUS_WORLD,
  importJournals,
  logger,
  nightly,
  plantedFindings,
} from './runner-world.js';

interface RunRow {
  run_id: string;
  command: string;
  outcome: string;
  exit_code: number | null;
  finished_at: string | null;
}

/** A logger that counts the merchants synced so far ("merchant synced" lines). */
function syncedCounter(): { logger: ReturnType<typeof createLogger>; synced: () => number } {
  let synced = 0;
  const logger = createLogger({
    level: 'info',
    destination: {
      write: (line: string) => {
        if (line.includes('"msg":"merchant synced"')) synced += 1;
      },
    },
  });
  return { logger, synced: () => synced };
}

describe('the nightly run on a world with planted anomalies', () => {
  let w: SyncWorld;
  let mirror: Mirror;
  let first: NightlyRunResult;
  let holderDuringRun: string | undefined;
  const reportsDir = () => join(w.dir, 'reports');
  const runRows = () =>
    mirror.db.prepare('SELECT * FROM sync_runs ORDER BY started_at').all() as RunRow[];

  beforeAll(async () => {
    w = await startSyncWorld({ seed: 'runner-nightly', ...ANOMALOUS_WORLD });
    mirror = w.openMirror();
    await importJournals(w, mirror.db);
    first = await nightly(w, mirror.db, {
      exitCodeOf: () => {
        holderDuringRun = readHolder(mirror.db)?.runId;
        return 0;
      },
    });
  });
  afterAll(async () => {
    await mirror?.close();
    await w?.close();
  });

  it('syncs and reconciles under one run id, one run record and one hold of the lock', () => {
    expect(first.sync.outcome).toBe('done');
    expect(first.sync.runId).toBe(first.runId);
    expect(first.reconcile?.runId).toBe(first.runId);
    expect(holderDuringRun, 'the lock is still the run’s after reconciling').toBe(first.runId);
    expect(readHolder(mirror.db)).toBeNull();
    expect(runRows()).toMatchObject([
      { run_id: first.runId, command: 'run', outcome: 'done', exit_code: 0 },
    ]);
    expect(mirror.db.prepare('SELECT run_id FROM recon_runs').pluck().all()).toEqual([first.runId]);
  });

  it('writes the report folder and points latest at it', async () => {
    expect(readdirSync(reportsDir()).sort()).toEqual([first.runId, 'latest']);
    expect(readlinkSync(join(reportsDir(), 'latest'))).toBe(first.runId);
    const rows = parse(readFileSync(join(reportsDir(), first.runId, 'discrepancies.csv')), {
      columns: true,
    }) as Record<string, string>[];
    const planted = await plantedFindings(w);
    expect(rows).toHaveLength(planted.length);
    expect(rows.map((r) => r.check).sort()).toEqual(planted.map((f) => f.check).sort());
    expect(new Set(rows.map((r) => r.state))).toEqual(new Set(['new']));
  });

  it('finds the same findings again, all persisting, when nothing changed', async () => {
    const again = await runReconcile({
      db: mirror.db,
      settings: DEFAULT_RECON_SETTINGS,
      reportsDir: reportsDir(),
      logger,
    });
    const fingerprints = (r: { fingerprint: string }[]) => r.map((f) => f.fingerprint).sort();
    expect(fingerprints([...again.reconciliation.current])).toEqual(
      fingerprints([...(first.reconcile?.reconciliation.current ?? [])]),
    );
    expect(new Set(again.reconciliation.current.map((f) => f.state))).toEqual(
      new Set(['persisting']),
    );
    expect(again.reconciliation.resolved).toEqual([]);
    expect(again.data).toMatchObject({ syncRunId: first.runId, complete: true });
    expect(readlinkSync(join(reportsDir(), 'latest'))).toBe(again.runId);
  });

  it('refuses to start while another run holds the lock, and writes nothing', async () => {
    const before = readdirSync(reportsDir()).sort();
    const lock = acquireMirrorLock(mirror.db, { runId: 'someone-else' });
    try {
      await expect(nightly(w, mirror.db)).rejects.toMatchObject({ code: 'MIRROR_LOCKED' });
      await expect(
        runReconcile({
          db: mirror.db,
          settings: DEFAULT_RECON_SETTINGS,
          reportsDir: reportsDir(),
          logger,
        }),
      ).rejects.toMatchObject({ code: 'MIRROR_LOCKED' });
    } finally {
      lock.release();
    }
    expect(readdirSync(reportsDir()).sort()).toEqual(before);
    expect(runRows()).toHaveLength(1);
  });

  it('leaves the findings store as it was when the report cannot be written', async () => {
    const runs = () => mirror.db.prepare('SELECT count(*) FROM recon_runs').pluck().get();
    const events = () => mirror.db.prepare('SELECT count(*) FROM finding_events').pluck().get();
    const [runsBefore, eventsBefore] = [runs(), events()];
    const blocked = join(w.dir, 'not-a-folder');
    writeFileSync(blocked, 'x');
    await expect(
      runReconcile({
        db: mirror.db,
        settings: DEFAULT_RECON_SETTINGS,
        reportsDir: join(blocked, 'reports'),
        logger,
      }),
    ).rejects.toMatchObject({ code: 'REPORT_WRITE_FAILED' });
    expect([runs(), events()]).toEqual([runsBefore, eventsBefore]);
    expect(readHolder(mirror.db)).toBeNull();
  });

  it('never removes a folder it refused to replace: only a folder a crashed run published is removed', async () => {
    const taken = join(reportsDir(), '20000101T000000Z-taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'notes.txt'), 'not cardsync’s');
    const settings = DEFAULT_RECON_SETTINGS;
    await expect(
      runReconcile({
        db: mirror.db,
        settings,
        reportsDir: reportsDir(),
        logger,
        runId: '20000101T000000Z-taken',
      }),
    ).rejects.toMatchObject({ code: 'REPORT_EXISTS' });
    expect(mirror.db.prepare('SELECT count(*) FROM pending_reports').pluck().get()).toBe(0);
    await runReconcile({ db: mirror.db, settings, reportsDir: reportsDir(), logger });
    expect(readFileSync(join(taken, 'notes.txt'), 'utf8')).toBe('not cardsync’s');
  });

  it('tells a reconciliation on its own that a run whose reports failed, or that died reconciling, had synced in full', async () => {
    const blocked = join(w.dir, 'blocked-reports');
    writeFileSync(blocked, 'x');
    await expect(
      nightly(w, mirror.db, { reportsDir: join(blocked, 'reports') }),
    ).rejects.toMatchObject({ code: 'REPORT_WRITE_FAILED' });
    const failed = runRows().at(-1)!;
    expect(failed).toMatchObject({ outcome: 'failed', exit_code: 1 });
    const reconcile = () =>
      runReconcile({
        db: mirror.db,
        settings: DEFAULT_RECON_SETTINGS,
        reportsDir: reportsDir(),
        logger,
      });
    expect((await reconcile()).data).toMatchObject({
      syncRunId: failed.run_id,
      syncOutcome: 'done',
      complete: true,
      reason: null,
    });
    // What a run that died while reconciling leaves: its row `running` again (reopenRun).
    const died = await nightly(w, mirror.db);
    reopenRun(mirror.db, died.runId);
    expect((await reconcile()).data).toMatchObject({
      syncRunId: died.runId,
      syncOutcome: 'done',
      complete: true,
    });
  });

  it('still reconciles after an incomplete sync, and says the data is incomplete', async () => {
    w.t.sandbox.faults.replace([
      { kind: 'server-error', status: 503, match: { operation: 'getMerchantBalance' } },
    ]);
    try {
      const run = await nightly(w, mirror.db, {
        exitCodeOf: ({ sync }) => (sync.outcome === 'incomplete' ? 4 : 0),
      });
      expect(run.sync.outcome).toBe('incomplete');
      expect(run.reconcile?.data).toMatchObject({
        syncRunId: run.runId,
        syncOutcome: 'incomplete',
        complete: false,
      });
      expect(run.reconcile?.data.reason).toMatch(/balance/);
      expect(runRows().at(-1)).toMatchObject({ outcome: 'incomplete', exit_code: 4 });
      const summary = parse(readFileSync(join(run.reconcile!.reportDir, 'summary.csv')), {
        columns: true,
      }) as Record<string, string>[];
      expect(summary.find((r) => r.measure === 'data_complete')?.value).toBe('false');
    } finally {
      w.t.sandbox.faults.reset();
    }
  });

  it('reconciles a run whose sync had ended when the stop came, instead of ending 0 without a report', async () => {
    // The stop arrives once every merchant is synced, before the run looks at its signal.
    const stop = new AbortController();
    const { logger: watching, synced } = syncedCounter();
    const run = await nightly(w, mirror.db, {
      logger: watching,
      signal: stop.signal,
      clock: () => {
        if (synced() === w.t.sandbox.merchants.length) stop.abort();
        return Date.now();
      },
    });
    expect(stop.signal.aborted).toBe(true);
    expect(run.sync.outcome).toBe('done');
    expect(run.exitCode).toBe(0);
    expect(run.reconcile?.reportDir).toBe(join(reportsDir(), run.runId));
    expect(readlinkSync(join(reportsDir(), 'latest'))).toBe(run.runId);
  });

  it('skips the reconciliation of a run that was stopped', async () => {
    const stop = new AbortController();
    stop.abort();
    const run = await nightly(w, mirror.db, { signal: stop.signal });
    expect(run.sync.outcome).toBe('interrupted');
    expect(run.reconcile).toBeNull();
    expect(run.reconcileSkipped).toMatch(/stopped/);
    expect(runRows().at(-1)).toMatchObject({ run_id: run.runId, outcome: 'interrupted' });
    expect(readdirSync(reportsDir())).not.toContain(run.runId);
  });

  it("skips the reconciliation of a run stopped after a merchant's key was refused, and ends 4", async () => {
    // The refused key outranked the stop: the run reconciled after the SIGTERM (which systemd's
    // TimeoutStopSec cuts short with a SIGKILL on a large mirror) and recorded exit 3, not 4.
    const stop = new AbortController();
    const { logger: watching, synced } = syncedCounter();
    const run = await nightly(
      w,
      mirror.db,
      {
        logger: watching,
        signal: stop.signal,
        // The stop comes while the second merchant syncs, after the first one's key was refused.
        clock: () => {
          if (synced() === 1) stop.abort();
          return Date.now();
        },
      },
      ['sk_test_revoked_key_0000'],
    );
    expect(run.sync.merchants.map((m) => m.outcome)).toEqual(['unauthorized', 'interrupted']);
    expect(run.sync.outcome).toBe('interrupted');
    expect(run.exitCode).toBe(4);
    expect(run.reconcile).toBeNull();
    expect(runRows().at(-1)).toMatchObject({ run_id: run.runId, outcome: 'interrupted' });
    expect(readdirSync(reportsDir())).not.toContain(run.runId);
  });

  it("leaves nothing of itself on the caller's signal, which `schedule` keeps for months", async () => {
    // AbortSignal.any put a WeakRef to each run's signal into the caller's signal, a Set Node
    // never prunes: one more per tick, for the life of a schedule (seen in a heap snapshot
    // diff after 60 ticks: 60 WeakRefs under the stop signal). Node's own name for that Set.
    const dependantsOf = (signal: AbortSignal) => {
      const key = Object.getOwnPropertySymbols(signal).find(
        (s) => s.description === 'kDependantSignals',
      );
      return key ? (signal as unknown as Record<symbol, Set<unknown>>)[key]!.size : 0;
    };
    // The probe sees what AbortSignal.any leaves behind on this Node (Node 24 links a composite
    // signal to its sources once a listener is added to it, Node 20 at once).
    const probe = new AbortController().signal;
    AbortSignal.any([probe]).addEventListener('abort', () => {});
    expect(dependantsOf(probe)).toBe(1);
    const stop = new AbortController();
    const dependants = () => dependantsOf(stop.signal);
    for (let i = 0; i < 3; i++) {
      const run = await nightly(w, mirror.db, { signal: stop.signal });
      expect(run.sync.outcome).toBe('done');
    }
    expect(dependants()).toBe(0);
    // Still the run's stop: a signal aborted before a run stops it.
    stop.abort();
    const stopped = await nightly(w, mirror.db, { signal: stop.signal });
    expect(stopped.sync.outcome).toBe('interrupted');
  });
});
