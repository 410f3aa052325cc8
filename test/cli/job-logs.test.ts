import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { acquireMirrorLock } from '../../src/mirror/mirror-lock.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database, sqliteDriver } from '../../src/sqlite-driver.js';
import { type CliResult, runCliProcess, startCliProcess } from '../support/cli-process.js';
import { deadPort } from '../support/egress-proxy.js';
import { type JobFixture, startJobFixture } from './job-fixture.js';

/** Whether a sync of the mirror at `db` is recorded as running. */
function syncRunning(db: string): boolean {
  const reader = new Database(db, { readonly: true });
  try {
    return reader.prepare("SELECT 1 FROM sync_runs WHERE outcome = 'running'").get() !== undefined;
  } finally {
    reader.close();
  }
}

// What an operator's log shipper reads from `run`, `sync` and `reconcile` under cron or systemd
// (stderr not a terminal): pino JSON lines, each of them naming the run, the last one `run
// finished` saying how it ended, then at most the one plain line of a failure.

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

/** The log of a finished command: one run id throughout, `run finished` last, then the plain line. */
function finishedLog(run: CliResult, command: string, exitCode: number) {
  expect(run.code, run.stderr).toBe(exitCode);
  const { json, plain } = stderrLines(run.stderr);
  expect(plain).toHaveLength(exitCode === 0 ? 0 : 1);
  const finished = json.at(-1);
  expect(finished, run.stderr).toMatchObject({ msg: 'run finished', command, exitCode });
  expect(json.filter((l) => l.msg === 'run finished')).toHaveLength(1);
  expectOneRunId(json);
  expect(typeof finished?.durationMs).toBe('number');
  if (exitCode !== 0)
    expect((finished?.error as { message?: string } | undefined)?.message).toBe(
      plain[0]?.replace(/^cardsync: /, ''),
    );
  return { lines: json, finished: finished as LogLine };
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

  it('a run of 429s logs one warning per halving of the concurrency, none once it is 1: not one a request', async () => {
    for (const [concurrency, halvings] of [
      ['1', 0],
      ['2', 1],
    ] as const) {
      f.t.sandbox.faults.replace([{ kind: 'rate-limit', retryAfterSeconds: 0, times: 5 }]);
      try {
        const run = await runCliProcess(['sync', '--concurrency', concurrency], f.env);
        expect(run.code, run.stderr).toBe(0);
        const halved = stderrLines(run.stderr).json.filter((l) => l.msg.includes('rate limit'));
        expect(halved, run.stderr).toHaveLength(halvings);
        for (const line of halved) expect(line).toMatchObject({ level: 40, concurrencyLimit: 1 });
      } finally {
        f.t.sandbox.faults.reset();
      }
    }
  }, 60_000);

  it('run, sync and reconcile begin with what they were configured with: the mirror, reports, metrics and merchants, never a key', async () => {
    for (const command of ['run', 'sync', 'reconcile'] as const) {
      const run = await runCliProcess([command], f.env);
      const { lines } = finishedLog(run, command, 0);
      expect(lines[0], run.stderr).toMatchObject({
        level: 30,
        msg: 'configured',
        config: {
          db: f.db,
          reportsDir: f.reportsDir,
          metricsFile: f.metricsFile,
          merchants:
            command === 'reconcile'
              ? expect.any(Array)
              : [
                  {
                    name: 'default',
                    baseUrl: f.env.CARDSYNC_BASE_URL,
                    keyFrom: 'CARDSYNC_API_KEY',
                  },
                ],
        },
      });
      expect(lines[0]?.runtime, run.stderr).toEqual({
        node: process.versions.node,
        sqlite: `${sqliteDriver.package}@${sqliteDriver.version}`,
      });
      expect(lines.filter((l) => l.msg === 'configured')).toHaveLength(1);
      expect(run.stderr).not.toContain(f.env.CARDSYNC_API_KEY);
    }
  }, 60_000);

  it('run, exit 0: the last line says how it ended, with its counts and durations', async () => {
    const run = await runCliProcess(['run'], f.env);
    const { finished } = finishedLog(run, 'run', 0);
    expect(finished).toMatchObject({
      level: 30,
      outcome: 'ok',
      sync: 'done',
      syncDurationMs: expect.any(Number),
      reconcileDurationMs: expect.any(Number),
      rows: { cards: { read: expect.any(Number), new: expect.any(Number) } },
      findings: { current: expect.any(Number), new: expect.any(Number) },
      dataComplete: true,
      reportDir: expect.stringContaining(finished.runId as string),
    });
    expect((finished.rows as { cards: { read: number } }).cards.read).toBeGreaterThan(0);
  }, 60_000);

  it('run, exit 4 (upstream unavailable after retries): a warning with the error', async () => {
    f.t.sandbox.faults.replace([
      { kind: 'server-error', status: 503, match: { operation: 'listTransactions' } },
    ]);
    try {
      const run = await runCliProcess(['run'], f.env);
      expect(finishedLog(run, 'run', 4).finished).toMatchObject({
        level: 40,
        outcome: 'sync_incomplete',
        sync: 'incomplete',
        dataComplete: false,
        error: expect.objectContaining({
          message: expect.stringMatching(/^sync incomplete: .*503/),
        }),
      });
    } finally {
      f.t.sandbox.faults.reset();
    }
  }, 60_000);

  it('run, exit 3 (a key refused): an error naming where the key came from, never the key', async () => {
    const run = await runCliProcess(['run'], { ...f.env, CARDSYNC_API_KEY: 'sk_test_wrong' });
    expect(finishedLog(run, 'run', 3).finished).toMatchObject({
      level: 50,
      outcome: 'unauthorized',
      sync: 'unauthorized',
      error: expect.objectContaining({ message: expect.stringContaining('CARDSYNC_API_KEY') }),
    });
    expect(run.stderr).not.toContain('sk_test_wrong');
  }, 60_000);

  it('run, exit 5 (the lock held), exit 2 (a bad setting), exit 1 (a report that cannot be written)', async () => {
    const mirror = openMirror(f.db);
    const lock = acquireMirrorLock(mirror.db, { runId: 'held-by-test' });
    try {
      const locked = await runCliProcess(['run'], f.env);
      expect(finishedLog(locked, 'run', 5).finished).toMatchObject({
        level: 40,
        outcome: 'locked',
        error: expect.objectContaining({ code: 'MIRROR_LOCKED' }),
        sync: null,
      });
    } finally {
      lock.release();
      await mirror.close();
    }
    const usage = await runCliProcess(['run', '--grace-minutes', 'soon'], f.env);
    expect(finishedLog(usage, 'run', 2).finished).toMatchObject({
      level: 40,
      outcome: 'usage_error',
    });
    const reportsDir = join(f.dir, 'blocked-reports');
    mkdirSync(reportsDir);
    writeFileSync(join(reportsDir, 'latest'), 'not a link\n');
    const broken = await runCliProcess(['run'], { ...f.env, CARDSYNC_REPORTS_DIR: reportsDir });
    expect(finishedLog(broken, 'run', 1).finished).toMatchObject({
      level: 50,
      outcome: 'internal_error',
      sync: 'done',
      rows: { cards: { read: expect.any(Number) } },
      error: expect.objectContaining({ message: expect.stringContaining('latest') }),
    });
    // An expected failure is said by `error`; only a bug's adds a stack.
    expect(finishedLog(broken, 'run', 1).finished).not.toHaveProperty('err');
  }, 60_000);

  it('run stopped by SIGTERM: exit 4, interrupted, not reconciled, and the stop no error', async () => {
    f.t.sandbox.faults.replace([{ kind: 'latency', ms: 400 }]);
    try {
      const cli = startCliProcess(['run'], f.env);
      // Stopped once its sync is under way (its run recorded, its answers 400 ms out): a fixed
      // 1.5 s stopped it before its merchant's sync began on a loaded machine.
      await vi.waitFor(() => expect(syncRunning(f.db)).toBe(true), {
        timeout: 20_000,
        interval: 20,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      cli.child.kill('SIGTERM');
      const code = await cli.exited();
      const run = { code, stdout: cli.stdout(), stderr: cli.stderr() };
      const { lines, finished } = finishedLog(run, 'run', 4);
      expect(finished).toMatchObject({
        level: 40,
        sync: 'interrupted',
        reconcileSkipped: expect.any(String),
        findings: null,
      });
      expect(lines.filter((l) => l.level >= 50)).toEqual([]);
      expect(lines.filter((l) => l.msg === 'merchant sync stopped')).toEqual([
        expect.objectContaining({ level: 40, reason: expect.stringMatching(/aborted/) }),
      ]);
    } finally {
      f.t.sandbox.faults.reset();
    }
  }, 60_000);

  it('says why a merchant sync stopped by its error code and message, without a stack, for a refused key or an unreachable upstream', async () => {
    // A wrong key or base URL is the operator's to mend, not a bug: its log line names the
    // code, the operation and the attempts, as the run finished line's `error` does.
    const refused = await runCliProcess(['sync'], { ...f.env, CARDSYNC_API_KEY: 'sk_test_wrong' });
    const unreachable = await runCliProcess(['sync'], {
      ...f.env,
      CARDSYNC_BASE_URL: `https://127.0.0.1:${await deadPort()}`,
    });
    for (const [run, exitCode, code] of [
      [refused, 3, 'UPSTREAM_UNAUTHORIZED'],
      [unreachable, 4, 'UPSTREAM_UNAVAILABLE'],
    ] as const) {
      const { lines } = finishedLog(run, 'sync', exitCode);
      expect(lines.filter((l) => l.msg === 'merchant sync stopped')).toEqual([
        expect.objectContaining({
          level: 50,
          source: 'default',
          error: expect.objectContaining({ code, message: expect.any(String) }),
        }),
      ]);
      expect(run.stderr).not.toMatch(/"stack"|\n {4}at /);
    }
  }, 60_000);

  it('sync and reconcile end with their own run finished line', async () => {
    const sync = await runCliProcess(['sync'], f.env);
    expect(finishedLog(sync, 'sync', 0).finished).toMatchObject({
      level: 30,
      sync: 'done',
      rows: { transactions: { read: expect.any(Number) } },
      findings: null,
    });
    const refused = await runCliProcess(['sync'], { ...f.env, CARDSYNC_API_KEY: 'sk_test_wrong' });
    expect(finishedLog(refused, 'sync', 3).finished).toMatchObject({ sync: 'unauthorized' });
    const reconcile = await runCliProcess(['reconcile'], f.env);
    expect(finishedLog(reconcile, 'reconcile', 0).finished).toMatchObject({
      sync: null,
      findings: { current: expect.any(Number) },
    });
    const failing = await runCliProcess(['reconcile', '--fail-on', 'error'], f.env);
    expect(finishedLog(failing, 'reconcile', 6).finished).toMatchObject({
      level: 30,
      outcome: 'discrepancies',
    });
    const missing = await runCliProcess(['reconcile'], {
      ...f.env,
      CARDSYNC_DB: join(f.dir, 'none.sqlite'),
    });
    expect(finishedLog(missing, 'reconcile', 2).finished).toMatchObject({ outcome: 'usage_error' });
  }, 60_000);

  it("a command line the parser refuses ends with its run finished line too, before the parser's plain lines", async () => {
    const cases = [
      [['sync', '--bogus'], 'sync', 'commander.unknownOption', "unknown option '--bogus'"],
      [['run', '--lookback-hours'], 'run', 'commander.optionMissingArgument', /--lookback-hours/],
      [
        ['reconcile', '--fail-on', 'critical'],
        'reconcile',
        'commander.invalidArgument',
        /critical/,
      ],
    ] as const;
    for (const [args, command, code, message] of cases) {
      const result = await runCliProcess(args, f.env);
      expect(result.code, result.stderr).toBe(2);
      const { json, plain } = stderrLines(result.stderr);
      expect(json, result.stderr).toHaveLength(1);
      expect(json[0]).toMatchObject({
        msg: 'run finished',
        level: 40,
        command,
        exitCode: 2,
        outcome: 'usage_error',
        error: { code, message: expect.stringMatching(message) },
      });
      expectOneRunId(json);
      // The parser's own line, then its hint: as before, after the JSON.
      const logged = json[0]?.error as { message: string } | undefined;
      expect(plain).toEqual([`error: ${logged?.message}`, '(run with --help for usage)']);
    }
    // Not a job: no run, so no run finished line.
    const cards = await runCliProcess(['cards', '--bogus'], f.env);
    expect(cards.code).toBe(2);
    expect(stderrLines(cards.stderr).json).toEqual([]);
  }, 60_000);

  it('a bad --log-level (loud), refused while the command line is parsed, ends with its run finished line too, then the one plain line naming the flag', async () => {
    for (const command of ['run', 'sync', 'reconcile'] as const) {
      const result = await runCliProcess([command, '--log-level', 'loud'], f.env);
      const { finished } = finishedLog(result, command, 2);
      expect(finished).toMatchObject({
        level: 40,
        outcome: 'usage_error',
        sync: null,
        error: { code: 'USAGE_INVALID', message: expect.stringMatching(/^--log-level .*"loud"/) },
      });
    }
  }, 60_000);

  it('a key typed as a flag (--api-key=KEY) is refused without repeating it: not in the run finished line, the plain line nor the JSON error', async () => {
    const key = 'sk_live_typed_as_a_flag_0123456789';
    for (const args of [
      ['sync', `--api-key=${key}`],
      ['balance', '--json', `--api-key=${key}`],
    ]) {
      const result = await runCliProcess(args, f.env);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain("error: unknown option '--api-key=…'");
      expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    }
  }, 60_000);
});
