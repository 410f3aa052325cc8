import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';
import { type JobFixture, startJobFixture } from './job-fixture.js';

// What an operator's log shipper reads from `run`, `sync` and `reconcile` under cron or systemd
// (stderr not a terminal): pino JSON lines, each of them naming the run, then at most the one
// plain line of a failure, last.

interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly runId?: string | null;
  readonly [field: string]: unknown;
}

/** The JSON lines of `stderr`, and the plain text after them; fails on plain text amid them. */
function stderrLines(stderr: string): { json: LogLine[]; plain: string[] } {
  const lines = stderr.split('\n');
  expect(lines.pop(), 'stderr ends with a line end').toBe('');
  const json: LogLine[] = [];
  const plain: string[] = [];
  for (const line of lines) {
    if (line.startsWith('{')) {
      expect(plain, `a JSON line after the plain ${JSON.stringify(plain)}`).toEqual([]);
      json.push(JSON.parse(line) as LogLine);
    } else plain.push(line);
  }
  return { json, plain };
}

/** Every JSON line names one and the same run. */
function expectOneRunId(lines: readonly LogLine[]): string {
  const runId = lines.find((l) => typeof l.runId === 'string')?.runId;
  expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
  for (const line of lines) expect(line.runId, JSON.stringify(line)).toBe(runId);
  return runId as string;
}

describe('the logs of the job commands, stderr not a terminal', () => {
  let f: JobFixture;

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'job-logs',
      world: { cards: 30, transactions: 300, days: 10, anomaliesPerCode: 1 },
    });
  }, 60_000);
  afterAll(async () => f?.close());

  it('run and sync through rate limits, 503s and resets that retries absorb: exit 0, no error line, every line naming the run', async () => {
    for (const command of ['run', 'sync']) {
      f.t.sandbox.faults.replace([
        { kind: 'rate-limit', retryAfterSeconds: 1, times: 2 },
        { kind: 'server-error', status: 503, probability: 0.2 },
        { kind: 'reset', probability: 0.1 },
      ]);
      try {
        const run = await runCliProcess([command], f.env);
        expect(run.code, run.stderr).toBe(0);
        const { json, plain } = stderrLines(run.stderr);
        expect(plain).toEqual([]);
        expect(json.some((l) => l.msg.includes('rate limit'))).toBe(true);
        expect(json.filter((l) => l.level >= 50)).toEqual([]);
        expectOneRunId(json);
      } finally {
        f.t.sandbox.faults.reset();
      }
    }
  }, 60_000);
});
