import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { runChecks } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import {
  expectSameFindings,
  importJournals,
  type Manifest,
  readManifest,
} from './support/recon-world.js';

describe('reconciling a world of 100,000 transactions with planted anomalies', () => {
  let w: SyncWorld;
  let manifest: Manifest;
  let results: CheckResults;
  let checkMs = 0;
  beforeAll(async () => {
    const started = Date.now();
    w = await startSyncWorld({
      seed: 'recon-scale',
      merchants: 2,
      currencies: ['USD', 'JPY'],
      world: { cards: 4_000, transactions: 100_000, days: 60, anomaliesPerCode: 3 },
    });
    const generated = Date.now();
    manifest = await readManifest(w);
    // Pages of 100, windows up to 20 pages: the sync's own defaults, not the suite's tiny ones.
    const synced = await w.sync({ settings: { maxPagesPerWindow: 20 } });
    expect(synced.outcome).toBe('done');
    const syncedAt = Date.now();
    const mirror = w.openMirror();
    try {
      await importJournals(w, mirror);
      const before = Date.now();
      results = runChecks(mirror.db);
      checkMs = Date.now() - before;
    } finally {
      await mirror.close();
    }
    console.log(
      `generate ${generated - started} ms, sync ${syncedAt - generated} ms, checks ${checkMs} ms`,
    );
  }, 180_000);
  afterAll(async () => w?.close());

  it('finds exactly the planted findings', () => {
    expectSameFindings(manifest.findings, results.findings);
    expect(results.findings.length).toBe(manifest.findings.length);
  });

  it('runs the checks over the whole mirror well within a minute', () => {
    expect(checkMs).toBeLessThan(30_000);
  });
});
