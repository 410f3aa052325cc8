import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Mirror } from '../../src/mirror/open-mirror.js';
import { DEFAULT_RECON_SETTINGS } from '../../src/recon/recon-settings.js';
import { runReconcile } from '../../src/runner/run-reconcile.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { logger, nightly } from './runner-world.js';

/** How far ahead the host's clock was on the first night, before NTP set it back. */
const AHEAD_MS = 3_600_000;

describe('a night after the host clock was set back', () => {
  let w: SyncWorld;
  let mirror: Mirror;

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'host-clock-set-back',
      merchants: 1,
      world: { cards: 20, transactions: 120, days: 10, anomaliesPerCode: 0 },
    });
    mirror = w.openMirror();
    const ahead = await nightly(w, mirror.db, { clock: () => Date.now() + AHEAD_MS });
    expect(ahead.sync.outcome).toBe('done');
  }, 60_000);
  afterAll(async () => {
    await mirror?.close();
    await w?.close();
  });

  it('judges the data by the sync that ran last, not by the one whose start the host stamped latest', async () => {
    const m0 = w.t.sandbox.merchants[0]!;
    w.t.sandbox.faults.replace([
      {
        kind: 'server-error',
        status: 503,
        match: { operation: 'getMerchantBalance', merchantId: m0.merchantId },
      },
    ]);
    let failed: Awaited<ReturnType<typeof nightly>>;
    try {
      failed = await nightly(w, mirror.db);
    } finally {
      w.t.sandbox.faults.reset();
    }
    expect(failed.sync.outcome).toBe('incomplete');
    // The night's own report, and a reconciliation on its own the morning after.
    const alone = await runReconcile({
      db: mirror.db,
      settings: DEFAULT_RECON_SETTINGS,
      reportsDir: join(w.dir, 'reports'),
      logger,
    });
    for (const data of [failed.reconcile?.data, alone.data]) {
      expect(data).toMatchObject({ syncRunId: failed.runId, complete: false });
      expect(data?.reason).toMatch(/balance/);
    }
    // STALE_PENDING cannot trust PENDING statuses the failed sync's audit never checked.
    const stale = alone.results.coverage.find(
      (c) => c.check === 'STALE_PENDING' && c.merchantId === m0.merchantId,
    );
    expect(JSON.stringify(stale)).toMatch(/count audit did not finish/);
  }, 60_000);
});
