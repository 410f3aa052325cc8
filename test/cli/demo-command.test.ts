import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_CODES } from '../../src/recon/check-code.js';
import { type CliResult, runCliProcess, startCliProcess } from '../support/cli-process.js';
import { messageLines, readCsv } from './job-fixture.js';

const SMALL = ['--cards', '300', '--transactions', '3000', '--anomalies', '1'];

/**
 * A user's environment pointing elsewhere: the demo must not follow it (its own config file
 * alone says where the upstream, the mirror and the reports are).
 */
function strayEnv(base: string): Record<string, string> {
  return {
    CARDSYNC_BASE_URL: 'https://cards.example.invalid',
    CARDSYNC_API_KEY: 'sk_live_not_for_the_demo',
    CARDSYNC_DB: join(base, 'elsewhere', 'mirror.sqlite'),
    CARDSYNC_REPORTS_DIR: join(base, 'elsewhere', 'reports'),
    CARDSYNC_METRICS_FILE: join(base, 'elsewhere', 'cardsync.prom'),
  };
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile());
}

/** Rows per check code. */
function countByCheck(rows: readonly { check?: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { check = '' } of rows) counts[check] = (counts[check] ?? 0) + 1;
  return counts;
}

describe('cardsync demo', () => {
  let base: string;
  let dir: string;
  let first: CliResult;
  const manifest = () =>
    JSON.parse(readFileSync(join(dir, 'sandbox', 'ground-truth.json'), 'utf8')) as {
      findings: { check: string }[];
    };
  const keys = () =>
    readdirSync(join(dir, 'sandbox'))
      .filter((name) => name.endsWith('.key'))
      .map((name) => readFileSync(join(dir, 'sandbox', name), 'utf8').trim());

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'cardsync-demo-'));
    dir = join(base, 'demo');
    first = await runCliProcess(['demo', '--dir', dir, '--seed', 'demo-cli', ...SMALL], {
      ...strayEnv(base),
    });
  }, 120_000);
  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('exits 0 and names the reports and the mirror, which exist', () => {
    expect(first.code, first.stderr).toBe(0);
    const discrepancies = join(dir, 'reports', 'latest', 'discrepancies.csv');
    const summary = join(dir, 'reports', 'latest', 'summary.csv');
    const mirror = join(dir, 'cardsync.sqlite');
    for (const file of [discrepancies, summary, mirror]) {
      expect(first.stdout).toContain(file);
      expect(existsSync(file), file).toBe(true);
    }
    expect(first.stdout).toContain(`sqlite3 -readonly ${mirror} "SELECT * FROM open_findings`);
    expect(first.stdout).toContain('docs/analysts.md');
    expect(first.stdout).toContain(`npx cardsync run --config ${join(dir, 'cardsync.json')}`);
  });

  it('ignores CARDSYNC_* variables: nothing is written where they point', () => {
    expect(existsSync(join(base, 'elsewhere'))).toBe(false);
  });

  it('reports exactly the planted findings: per check, manifest count = discrepancies.csv rows = the summary table', () => {
    const planted = countByCheck(manifest().findings);
    const rows = readCsv(join(dir, 'reports', 'latest', 'discrepancies.csv'));
    expect(countByCheck(rows)).toEqual(planted);
    expect(Object.keys(planted).sort()).toEqual(
      CHECK_CODES.filter((c) => c !== 'MERCHANT_BALANCE_MISMATCH').sort(),
    );
    for (const check of CHECK_CODES) {
      const line = first.stdout.match(
        new RegExp(`^\\s+${check}\\s+\\w+\\s+(\\d+)\\s+(\\d+)$`, 'm'),
      );
      expect(line, check).not.toBeNull();
      expect([Number(line?.[1]), Number(line?.[2])], check).toEqual([
        planted[check] ?? 0,
        planted[check] ?? 0,
      ]);
    }
  });

  it('mirrors both merchants, USD and JPY, with their cards, transactions and journals', () => {
    for (const [name, currency] of [
      ['usd', 'USD'],
      ['jpy', 'JPY'],
    ]) {
      const line = first.stdout.match(
        new RegExp(`^\\s+${name}\\s+mch_\\w+\\s+${currency}\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)$`, 'm'),
      );
      expect(line, name).not.toBeNull();
      expect(Number(line?.[1])).toBeGreaterThan(100);
      expect(Number(line?.[2])).toBeGreaterThan(Number(line?.[1]));
      expect(Number(line?.[3])).toBeGreaterThan(0);
    }
  });

  it('keeps each key in a 0600 file only: not on stdout, stderr, the config file, the reports or the mirror', () => {
    const secrets = keys();
    expect(secrets).toHaveLength(2);
    for (const name of readdirSync(join(dir, 'sandbox')).filter((n) => n.endsWith('.key')))
      expect(statSync(join(dir, 'sandbox', name)).mode & 0o777).toBe(0o600);
    const config = readFileSync(join(dir, 'cardsync.json'), 'utf8');
    const parsed = JSON.parse(config) as { merchants: { apiKeyFile: string }[] };
    expect(parsed.merchants.map((m) => m.apiKeyFile).sort()).toEqual([
      'sandbox/jpy.key',
      'sandbox/usd.key',
    ]);
    const texts = [
      first.stdout,
      first.stderr,
      config,
      ...filesUnder(join(dir, 'reports')).map((f) => readFileSync(f, 'latin1')),
      ...readdirSync(dir)
        .filter((n) => n.startsWith('cardsync.sqlite'))
        .map((n) => readFileSync(join(dir, n), 'latin1')),
    ];
    for (const secret of secrets) for (const text of texts) expect(text).not.toContain(secret);
  });

  it('leaves a config file that `cardsync run --config` uses against the restarted sandbox', async () => {
    const port = first.stdout.match(/--port (\d+)/)?.[1];
    expect(port).toBeDefined();
    const sandbox = startCliProcess([
      'sandbox',
      '--state-dir',
      join(dir, 'sandbox'),
      '--port',
      port ?? '0',
      '--log-level',
      'warn',
    ]);
    try {
      await sandbox.firstLine();
      const run = await runCliProcess(['run', '--config', join(dir, 'cardsync.json'), '--json']);
      expect(run.code, run.stderr).toBe(0);
      const parsed = JSON.parse(run.stdout) as {
        sync: { outcome: string };
        reconcile: { counts: { current: number; new: number } };
      };
      expect(parsed.sync.outcome).toBe('done');
      expect(parsed.reconcile.counts).toMatchObject({
        current: manifest().findings.length,
        new: 0,
      });
    } finally {
      sandbox.child.kill('SIGTERM');
      await sandbox.exited();
    }
  }, 60_000);

  it('starts fresh when run again on its folder, keeping files it did not write; --json parses', async () => {
    const before = readdirSync(join(dir, 'reports')).filter((n) => n !== 'latest');
    await writeFile(join(dir, 'notes.txt'), 'mine\n');
    const again = await runCliProcess(['demo', '--dir', dir, '--json', ...SMALL]);
    expect(again.code, again.stderr).toBe(0);
    const parsed = JSON.parse(again.stdout) as {
      dir: string;
      mirror: string;
      reports: { discrepancies: string; summary: string };
      merchants: { name: string; currency: string; cards: number; apiKeyFile: string }[];
      checks: { check: string; planted: number; reported: number }[];
      run: { runId: string; exitCode: number };
    };
    expect(parsed.dir).toBe(dir);
    expect(parsed.run.exitCode).toBe(0);
    expect(existsSync(parsed.reports.discrepancies)).toBe(true);
    expect(parsed.merchants.map((m) => m.currency)).toEqual(['USD', 'JPY']);
    for (const c of parsed.checks) expect(c.reported, c.check).toBe(c.planted);
    expect(readdirSync(join(dir, 'reports')).filter((n) => n !== 'latest')).toEqual([
      parsed.run.runId,
    ]);
    expect(before).not.toContain(parsed.run.runId);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    for (const secret of keys()) expect(again.stdout + again.stderr).not.toContain(secret);
  }, 120_000);

  it('refuses a folder that holds other files, exit 2, and deletes nothing', async () => {
    const other = join(base, 'projects');
    await mkdir(join(other, 'sandbox'), { recursive: true });
    await writeFile(join(other, 'precious.txt'), 'keep\n');
    await writeFile(join(other, 'cardsync.sqlite'), 'not a demo mirror\n');
    await writeFile(join(other, 'sandbox', 'keep.txt'), 'keep\n');
    const result = await runCliProcess(['demo', '--dir', other, ...SMALL]);
    expect(result.code).toBe(2);
    expect(messageLines(result.stderr)).toEqual([
      `cardsync: --dir ${other} is not a demo folder (it holds files and no .cardsync-demo); choose another --dir`,
    ]);
    expect(readdirSync(other).sort()).toEqual(['cardsync.sqlite', 'precious.txt', 'sandbox']);
    expect(readFileSync(join(other, 'cardsync.sqlite'), 'utf8')).toBe('not a demo mirror\n');
    expect(readdirSync(join(other, 'sandbox'))).toEqual(['keep.txt']);
    expect(result.stdout).toBe('');
  });

  it.runIf(process.platform === 'linux')(
    'exits 2 naming --dir when the folder cannot be made (under /proc), instead of spinning for ever',
    async () => {
      const target = '/proc/cardsync-test/demo';
      const result = await runCliProcess(
        ['demo', '--dir', target, ...SMALL],
        {},
        { timeoutMs: 10_000 },
      );
      expect(result.code, `${result.stderr} (null: killed after hanging)`).toBe(2);
      expect(messageLines(result.stderr)).toEqual([
        `cardsync: --dir ${target}: cannot create it (ENOENT); choose another --dir`,
      ]);
    },
    20_000,
  );

  it.each([
    [['--cards', '0'], '--cards must be a whole number from 1'],
    [['--transactions', 'many'], '--transactions must be a whole number'],
    [['--anomalies', '-1'], '--anomalies must be a whole number from 0'],
    [['--cards', '300', '--transactions', '200'], '--transactions must be at least --cards (300)'],
    [['--log-level', 'loud'], '--log-level must be one of'],
  ])(
    'exits 2 with one line naming the flag for %j, before creating --dir',
    async (args, expected) => {
      const target = join(base, 'never');
      const result = await runCliProcess(['demo', '--dir', target, ...args]);
      expect(result.code).toBe(2);
      const lines = messageLines(result.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(expected);
      expect(existsSync(target)).toBe(false);
    },
  );
});

describe('cardsync demo stopped by a signal', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'cardsync-demo-stop-'));
  });
  afterAll(async () => {
    if (base) await rm(base, { recursive: true, force: true });
  });

  /** Start a demo and send SIGTERM when its log says `message`. */
  async function stopAt(args: readonly string[], message: string) {
    const cli = startCliProcess(['demo', '--dir', join(base, 'demo'), ...args]);
    await new Promise<void>((resolve, reject) => {
      const timer = setInterval(() => {
        if (cli.stderr().includes(`"msg":"${message}`)) {
          clearInterval(timer);
          cli.child.kill('SIGTERM');
          resolve();
        }
      }, 5);
      void cli.exited().then(() => {
        clearInterval(timer);
        reject(new Error(`demo exited before logging ${message}: ${cli.stderr()}`));
      });
    });
    return { code: await cli.exited(), stdout: cli.stdout(), stderr: cli.stderr() };
  }

  it('exits 0 with a line saying so when stopped while generating the world', async () => {
    const stopped = await stopAt(
      ['--cards', '40000', '--transactions', '40000', '--anomalies', '0'],
      'generating world',
    );
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toBe('');
    expect(messageLines(stopped.stderr)).toEqual(['demo: stopped before the nightly job started']);
  }, 60_000);

  it('exits 4 without reconciling when stopped during the nightly job, and the next demo starts fresh', async () => {
    const stopped = await stopAt(
      ['--cards', '2000', '--transactions', '20000', '--anomalies', '0'],
      'nightly job starting',
    );
    expect(stopped.code, stopped.stderr).toBe(4);
    expect(stopped.stdout).toBe('');
    expect(messageLines(stopped.stderr)).toEqual([
      expect.stringMatching(/^cardsync: demo stopped: run interrupted; .*not reconciled$/),
    ]);
    const again = await runCliProcess(['demo', '--dir', join(base, 'demo'), ...SMALL]);
    expect(again.code, again.stderr).toBe(0);
  }, 120_000);
});
