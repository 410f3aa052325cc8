import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { parsePrometheusText, sampleValue } from '../runner/prometheus-text.js';
import { type RunningCli, runCliProcess, startCliProcess } from '../support/cli-process.js';
import { type JobFixture, logLines, messageLines, startJobFixture } from './job-fixture.js';

interface LogLine {
  msg: string;
  running?: string;
  db?: string;
  exitCode?: number;
  sync?: string;
  runId?: string;
  error?: { code: string | null; message: string };
}

const logsOf = (cli: RunningCli): LogLine[] => logLines<LogLine>(cli.stderr());

async function until(what: string, cli: RunningCli, done: () => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline || cli.child.exitCode !== null || cli.child.signalCode !== null)
      throw new Error(`timed out waiting for ${what}; stderr:\n${cli.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface RunRow {
  run_id: string;
  command: string;
  started_at: string;
  finished_at: string | null;
  outcome: string;
  exit_code: number | null;
}

describe('cardsync schedule', () => {
  let f: JobFixture;
  const runRows = () => {
    const mirror = openMirror(f.db);
    try {
      return mirror.db.prepare('SELECT * FROM sync_runs ORDER BY started_at').all() as RunRow[];
    } finally {
      void mirror.close();
    }
  };

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'schedule-cli',
      world: { cards: 20, transactions: 120, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => f?.close());

  it.each([
    [['--cron', 'every night'], /^cardsync: --cron: expected a cron expression/],
    [['--cron', '61 * * * *'], /^cardsync: --cron: .*61/],
    // Each field valid alone, but the 15th is never a month's first Monday: no tick would come.
    [['--cron', '0 2 15 * 1#1'], /^cardsync: --cron: .*names no time/],
    [
      ['--cron', '0 2 * * *', '--tz', 'Mars/Olympus'],
      /^cardsync: --tz: expected an IANA time zone/,
    ],
    [[], /required option '--cron <expr>'/],
  ])('exits 2 on %j, naming the flag', async (args, message) => {
    const result = await runCliProcess(['schedule', ...args], f.env);
    expect(result.code, result.stderr).toBe(2);
    expect(messageLines(result.stderr)).toEqual([expect.stringMatching(message)]);
  });

  it('exits 2 at start-up on a configuration no run could use, creating nothing', async () => {
    const notes = join(f.dir, 'notes.txt');
    writeFileSync(notes, 'not a database, just notes\n');
    const junkCa = join(f.dir, 'junk-ca.pem');
    writeFileSync(junkCa, '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n');
    const newDb = join(f.dir, 'new-data', 'mirror.sqlite');
    for (const [args, message] of [
      [['--db', notes], /^cardsync: --db: .*not a database/],
      [['--db', newDb, '--ca-file', junkCa], /PEM certificate/],
      [['--db', join(notes, 'mirror.sqlite')], /^cardsync: --db: .*\(ENOTDIR\)/],
    ] as const) {
      const cli = startCliProcess(['schedule', '--cron', '0 2 * * *', ...args], f.env);
      // Without the check it would stay up, failing each night: give it a few seconds.
      const ended = await Promise.race([
        cli.exited(),
        new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), 8_000)),
      ]);
      cli.child.kill('SIGTERM');
      expect(ended, cli.stderr()).toBe(2);
      expect(messageLines(cli.stderr())).toEqual([expect.stringMatching(message)]);
    }
    expect(existsSync(dirname(newDb))).toBe(false);
  }, 30_000);

  it('starts without creating a mirror that does not exist yet', async () => {
    const newDb = join(f.dir, 'later', 'mirror.sqlite');
    const cli = startCliProcess(['schedule', '--cron', '0 2 * * *', '--db', newDb], f.env);
    try {
      expect(await cli.firstLine()).toMatch(/^cardsync schedule: running `run`/);
      expect(existsSync(dirname(newDb))).toBe(false);
    } finally {
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exited(), cli.stderr()).toBe(0);
  });

  it('runs on every tick, one at a time, and stops cleanly on SIGTERM', async () => {
    const cli = startCliProcess(['schedule', '--cron', '*/2 * * * * *', '--tz', 'UTC'], f.env);
    try {
      expect(await cli.firstLine()).toMatch(
        /^cardsync schedule: running `run` on "\*\/2 \* \* \* \* \*" \(UTC\); next at /,
      );
      await until(
        'two finished runs',
        cli,
        () => logsOf(cli).filter((l) => l.msg === 'run finished').length >= 2,
      );
    } finally {
      cli.child.kill('SIGTERM');
    }
    const code = await cli.exited();
    expect(code, cli.stderr()).toBe(0);
    expect(cli.stdout()).toMatch(/cardsync schedule: stopped after \d+ runs/);
    const finished = logsOf(cli).filter((l) => l.msg === 'run finished');
    expect(finished.length).toBeGreaterThanOrEqual(2);
    expect(finished.slice(0, 2).map((l) => [l.exitCode, l.sync])).toEqual([
      [0, 'done'],
      [0, 'done'],
    ]);
    const rows = runRows();
    expect(rows.length).toBeGreaterThanOrEqual(2);
    for (const [i, row] of rows.entries()) {
      expect(row.command).toBe('run');
      expect(row.finished_at, 'every run had ended before the schedule did').not.toBeNull();
      if (i > 0) expect(row.started_at >= rows[i - 1]!.finished_at!).toBe(true);
    }
    const folders = readdirSync(f.reportsDir).filter((n) => n !== 'latest');
    expect(folders.length).toBe(rows.filter((r) => r.outcome === 'done').length);
    const samples = parsePrometheusText(readFileSync(f.metricsFile, 'utf8'));
    expect(sampleValue(samples, 'cardsync_last_run_exit_code', { command: 'run' })).toBeDefined();
  }, 40_000);

  it('warns when the mirror an earlier run left is gone, then creates it anew', async () => {
    const db = join(f.dir, 'deleted', 'mirror.sqlite');
    const cli = startCliProcess(
      ['schedule', '--cron', '*/2 * * * * *', '--tz', 'UTC', '--db', db],
      f.env,
    );
    const finished = () => logsOf(cli).filter((l) => l.msg === 'run finished');
    const gone = () => logsOf(cli).filter((l) => l.msg.startsWith('the mirror is gone'));
    try {
      await cli.firstLine();
      await until('a first run', cli, () => finished().length >= 1);
      // The first run created the mirror: no news.
      expect(gone()).toEqual([]);
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
      const deletedAt = finished().length;
      await until('the warning', cli, () => gone().length >= 1);
      await until('a run after it', cli, () => finished().length >= deletedAt + 2);
    } finally {
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exited(), cli.stderr()).toBe(0);
    expect(gone()).toEqual([expect.objectContaining({ db, runId: expect.any(String) })]);
    expect(finished().at(-1)).toMatchObject({ exitCode: 0, sync: 'done' });
    expect(existsSync(db)).toBe(true);
  }, 40_000);

  it('reads the key file again for each run: a key renewed after a 401 is used without a restart', async () => {
    const keyFile = join(f.dir, 'rotated.key');
    writeFileSync(keyFile, 'sk_test_revoked_key_0000\n');
    const env = { ...f.env, CARDSYNC_API_KEY: '', CARDSYNC_API_KEY_FILE: keyFile };
    const cli = startCliProcess(['schedule', '--cron', '*/2 * * * * *', '--tz', 'UTC'], env);
    const finished = () => logsOf(cli).filter((l) => l.msg === 'run finished');
    try {
      await cli.firstLine();
      await until('a run refused for its key', cli, () => finished().length >= 1);
      expect(finished()[0]).toMatchObject({ exitCode: 3, sync: 'unauthorized' });
      // What the exit 3 line tells the operator to do: renew the key in the file it names.
      writeFileSync(keyFile, `${f.env.CARDSYNC_API_KEY}\n`);
      const renewedAt = finished().length;
      await until('two more runs', cli, () => finished().length >= renewedAt + 2);
    } finally {
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exited(), cli.stderr()).toBe(0);
    expect(finished().at(-1), cli.stderr()).toMatchObject({ exitCode: 0, sync: 'done' });
  }, 40_000);

  it("checks an edited configuration's reports folder before a run, as cardsync run does: exit 2, nothing synced", async () => {
    // The folder an operator points the configuration at once the schedule is up, but a file:
    // `cardsync run` refuses it (exit 2) before syncing; each tick read it and synced anyway, then
    // failed writing the report (exit 1, "a bug") with the mirror changed.
    const notes = join(f.dir, 'reports-notes.txt');
    writeFileSync(notes, 'not a folder\n');
    const configFile = join(f.dir, 'edited.json');
    writeFileSync(configFile, JSON.stringify({ reportsDir: f.reportsDir }));
    const { CARDSYNC_REPORTS_DIR: _reportsDir, ...env } = f.env;
    const cli = startCliProcess(
      ['schedule', '--cron', '*/2 * * * * *', '--tz', 'UTC', '--config', configFile],
      env,
    );
    const finished = () => logsOf(cli).filter((l) => l.msg === 'run finished');
    try {
      await cli.firstLine();
      await until('a first run', cli, () => finished().length >= 1);
      writeFileSync(configFile, JSON.stringify({ reportsDir: join(notes, 'reports') }));
      const editedAt = finished().length;
      await until('a run after the edit', cli, () => finished().length >= editedAt + 2);
    } finally {
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exited(), cli.stderr()).toBe(0);
    const refused = finished().at(-1)!;
    expect(refused).toMatchObject({
      exitCode: 2,
      error: { message: expect.stringMatching(/^reportsDir: .*ENOTDIR/) },
    });
    expect(
      runRows().map((r) => r.run_id),
      'the refused run synced nothing',
    ).not.toContain(refused.runId);
  }, 40_000);

  it('a SIGHUP, idle or during a run, stops nothing: each run reads the configuration afresh anyway', async () => {
    // An operator's `kill -HUP` (a daemon's reload) or a closed terminal ended the process at
    // once, a run in flight with it: its row left `running`, its lock held until the next run.
    f.t.sandbox.faults.replace([
      { kind: 'latency', ms: 2500, match: { operation: 'getMerchantBalance' } },
    ]);
    const cli = startCliProcess(['schedule', '--cron', '*/2 * * * * *', '--tz', 'UTC'], f.env);
    const hangups = () => logsOf(cli).filter((l) => l.msg.includes('SIGHUP')).length;
    try {
      await cli.firstLine();
      cli.child.kill('SIGHUP');
      await until('the idle SIGHUP logged', cli, () => hangups() === 1);
      await until('a run started', cli, () => logsOf(cli).some((l) => l.msg === 'run starting'));
      cli.child.kill('SIGHUP');
      await until('the SIGHUP during the run logged', cli, () => hangups() === 2);
      await until('that run finished', cli, () =>
        logsOf(cli).some((l) => l.msg === 'run finished'),
      );
    } finally {
      f.t.sandbox.faults.reset();
      cli.child.kill('SIGTERM');
    }
    expect(await cli.exited(), cli.stderr()).toBe(0);
    expect(logsOf(cli).find((l) => l.msg === 'run finished')).toMatchObject({
      exitCode: 0,
      sync: 'done',
    });
  }, 40_000);

  it("names each tick's run in its run starting line, and a skipped tick the run still going", async () => {
    f.t.sandbox.faults.replace([
      { kind: 'latency', ms: 2500, match: { operation: 'getMerchantBalance' } },
    ]);
    const cli = startCliProcess(['schedule', '--cron', '* * * * * *'], f.env);
    try {
      await cli.firstLine();
      await until('a finished run and a skipped tick', cli, () => {
        const lines = logsOf(cli);
        return (
          lines.some((l) => l.msg === 'run finished') &&
          lines.some((l) => l.msg.includes('tick is skipped'))
        );
      });
    } finally {
      cli.child.kill('SIGTERM');
      f.t.sandbox.faults.reset();
    }
    expect(await cli.exited(), cli.stderr()).toBe(0);
    const lines = logsOf(cli);
    const started = lines.filter((l) => l.msg === 'run starting').map((l) => l.runId);
    for (const runId of started) expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{6}$/);
    const finished = lines.filter((l) => l.msg === 'run finished').map((l) => l.runId);
    expect(finished.length).toBeGreaterThan(0);
    // The runs that finished are the runs that started, in order, each under its one id.
    expect(started.slice(0, finished.length)).toEqual(finished);
    const skipped = lines.filter((l) => l.msg.includes('tick is skipped'));
    for (const line of skipped) expect(started).toContain(line.running);
  }, 60_000);

  it('skips ticks while a run is slow, and a SIGTERM stops the run in flight as a sync stops', async () => {
    f.t.sandbox.faults.replace([
      { kind: 'latency', ms: 2500, match: { operation: 'getMerchantBalance' } },
    ]);
    const before = runRows().length;
    const cli = startCliProcess(['schedule', '--cron', '* * * * * *'], f.env);
    let stoppedAt = 0;
    try {
      await cli.firstLine();
      await until('a finished run and the next one started', cli, () => {
        const lines = logsOf(cli);
        return (
          lines.some((l) => l.msg === 'run finished') &&
          lines.filter((l) => l.msg === 'run starting').length >= 2 &&
          lines.some((l) => l.msg.includes('tick is skipped'))
        );
      });
      // The second run is now waiting on the slow balance read.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      stoppedAt = Date.now();
      cli.child.kill('SIGTERM');
      f.t.sandbox.faults.reset();
    }
    const code = await cli.exited();
    expect(code, cli.stderr()).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(10_000);
    const finished = logsOf(cli).filter((l) => l.msg === 'run finished');
    expect(finished.at(-1)).toMatchObject({ exitCode: 4, sync: 'interrupted' });
    const rows = runRows().slice(before);
    expect(rows.at(-1)).toMatchObject({ outcome: 'interrupted', exit_code: 4 });
    for (const [i, row] of rows.entries())
      if (i > 0) expect(row.started_at >= rows[i - 1]!.finished_at!).toBe(true);
  }, 60_000);
});
