import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';
import { type JobFixture, logLines, startJobFixture } from './job-fixture.js';

// At info a run logs a handful of lines whatever its size (operations.md, "Logs"): nothing per
// row, page, request or window, however the upstream behaves, so that a night of a million rows
// under faults does not bury the lines that matter.

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

describe('the volume of a run log under an upstream that keeps moving', () => {
  let f: JobFixture;

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'drift',
      world: { cards: 40, transactions: 1000, days: 20, anomaliesPerCode: 1 },
    });
    const first = await runCliProcess(['sync'], f.env);
    expect(first.code, first.stderr).toBe(0);
  }, 60_000);
  afterAll(async () => f?.close());

  it('windows whose count never matched under drift make one warning per merchant, not one each', async () => {
    f.t.sandbox.faults.replace([
      { kind: 'drift', insert: 3, progress: 3, probability: 0.5 },
      { kind: 'page-size', max: 9, probability: 0.3 },
      { kind: 'server-error', status: 500, probability: 0.1 },
      { kind: 'truncate', probability: 0.05 },
    ]);
    try {
      const run = await runCliProcess(['sync', '--concurrency', '1'], f.env, {
        timeoutMs: 100_000,
      });
      expect(run.code, run.stderr).toBe(0);
      const lines = logLines<LogLine>(run.stderr);
      const synced = lines.find((l) => l.msg === 'merchant synced') as
        | { result: { transactions: { unverified: number } } }
        | undefined;
      const unverified = synced?.result.transactions.unverified ?? 0;
      // The fault must have done its work, or this test proves nothing.
      expect(unverified, run.stderr).toBeGreaterThan(1);
      const warnings = lines.filter((l) => l.msg.includes('never matched'));
      expect(warnings, run.stderr).toEqual([
        expect.objectContaining({ level: 40, source: 'default', windows: unverified }),
      ]);
    } finally {
      f.t.sandbox.faults.reset();
    }
  }, 120_000);
});
