import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { parsePrometheusText, sampleValue } from '../runner/prometheus-text.js';
import { runCliWithFullStream } from '../support/cli-process.js';
import { type JobFixture, startJobFixture } from './job-fixture.js';

/**
 * `cardsync ...args` with stderr on /dev/full, where every write fails with ENOSPC: a log file
 * on a full disk (`>>/var/log/cardsync/run.log 2>&1` in the crontab of docs/operations.md).
 */
async function runWithFullStderr(
  args: readonly string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string }> {
  const { code, other } = await runCliWithFullStream('stderr', args, env);
  return { code, stdout: other };
}

describe.skipIf(!existsSync('/dev/full'))(
  'a command whose stderr cannot be written (ENOSPC)',
  () => {
    let f: JobFixture;

    beforeAll(async () => {
      f = await startJobFixture({
        world: { cards: 20, transactions: 150, days: 10, anomaliesPerCode: 1 },
      });
    }, 60_000);
    afterAll(async () => f?.close());

    it('runs the night as without a log: synced, reported, the metrics file written, exit 0', async () => {
      const run = await runWithFullStderr(['run', '--json'], f.env);
      expect(run.code).toBe(0);
      const { runId } = JSON.parse(run.stdout) as { runId: string };
      const mirror = new Database(f.db, { readonly: true });
      try {
        expect(mirror.prepare('SELECT run_id, outcome, exit_code FROM sync_runs').all()).toEqual([
          { run_id: runId, outcome: 'done', exit_code: 0 },
        ]);
        expect(mirror.prepare('SELECT run_id FROM recon_runs').pluck().all()).toEqual([runId]);
      } finally {
        mirror.close();
      }
      expect(readlinkSync(join(f.reportsDir, 'latest'))).toBe(runId);
      const metrics = parsePrometheusText(readFileSync(f.metricsFile, 'utf8'));
      expect(sampleValue(metrics, 'cardsync_last_run_exit_code', { command: 'run' })).toBe(0);
    }, 60_000);

    it('keeps the exit code of a failing command (2 for a missing mirror), not 1', async () => {
      const missing = await runWithFullStderr(['reconcile', '--json'], {
        ...f.env,
        CARDSYNC_DB: join(f.dir, 'none', 'mirror.sqlite'),
      });
      expect(missing.code).toBe(2);
      expect(JSON.parse(missing.stdout)).toMatchObject({
        exitCode: 2,
        error: { code: 'MIRROR_MISSING' },
      });
    }, 30_000);
  },
);
