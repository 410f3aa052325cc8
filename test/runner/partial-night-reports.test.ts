import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/open-mirror.js';
import { DEFAULT_RECON_SETTINGS } from '../../src/recon/recon-settings.js';
import { runReconcile } from '../../src/runner/run-reconcile.js';
import { readCsv } from '../cli/job-fixture.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { importJournals, logger, nightly } from './runner-world.js';

describe('the reports of a night on which merchants failed in different ways', () => {
  let w: SyncWorld;
  let mirror: Mirror;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'partial-night-reports',
      merchants: 2,
      world: { cards: 20, transactions: 120, days: 10, anomaliesPerCode: 1 },
    });
    mirror = w.openMirror();
    await importJournals(w, mirror.db);
    const first = await nightly(w, mirror.db);
    expect(first.sync.outcome).toBe('done');
  }, 60_000);
  afterAll(async () => {
    await mirror?.close();
    await w?.close();
  });

  it('names each merchant whose sync did not complete, and why, the refused key by its own merchant', async () => {
    const m0 = w.t.sandbox.merchants[0]!;
    w.t.sandbox.faults.replace([
      {
        kind: 'server-error',
        status: 503,
        match: { operation: 'getMerchantBalance', merchantId: m0.merchantId },
      },
    ]);
    try {
      const run = await nightly(w, mirror.db, {}, { 1: 'sk_test_refused' });
      expect(run.sync.merchants.map((m) => [m.source, m.outcome])).toEqual([
        ['m0', 'incomplete'],
        ['m1', 'unauthorized'],
      ]);
      // What the night's reports say, and what a reconciliation on its own says the morning after.
      const reasons = [run.reconcile?.data.reason ?? ''];
      const summary = readCsv(join(run.reconcile!.reportDir, 'summary.csv'));
      reasons.push(summary.find((r) => r.measure === 'data_complete')?.reason ?? '');
      const alone = await runReconcile({
        db: mirror.db,
        settings: DEFAULT_RECON_SETTINGS,
        reportsDir: join(w.dir, 'reports'),
        logger,
      });
      reasons.push(alone.data.reason ?? '');
      for (const reason of reasons) {
        expect(reason).not.toMatch(/refused the key of m0/);
        expect(reason).toMatch(/m0\b.*balance|balance.*\bm0\b/);
        expect(reason).toMatch(/refused the key of m1/);
      }
    } finally {
      w.t.sandbox.faults.reset();
    }
  }, 60_000);

  it("says the sync ended unauthorized in the night's summary.csv and in a reconciliation on its own alike", async () => {
    // docs/operations.md: a reconcile alone reports how the last sync ended; sync_runs keeps a
    // refused key as `failed` (exit 3), which the morning's summary.csv repeated as the outcome.
    const run = await nightly(w, mirror.db, {}, { 1: 'sk_test_refused' });
    expect(run.sync.outcome).toBe('unauthorized');
    const alone = await runReconcile({
      db: mirror.db,
      settings: DEFAULT_RECON_SETTINGS,
      reportsDir: join(w.dir, 'reports'),
      logger,
    });
    const syncRows = (dir: string) =>
      readCsv(join(dir, 'summary.csv'))
        .filter((r) => r.measure === 'sync_run_id' || r.measure === 'sync_outcome')
        .map((r) => `${r.measure}=${r.value}`);
    const night = syncRows(run.reconcile!.reportDir);
    expect(night).toEqual([`sync_run_id=${run.runId}`, 'sync_outcome=unauthorized']);
    expect(syncRows(alone.reportDir)).toEqual(night);
  }, 60_000);
});
