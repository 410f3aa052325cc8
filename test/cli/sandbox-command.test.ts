import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliProcess, startCliProcess } from '../support/cli-process.js';

describe('cardsync sandbox', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  it('prints one JSON line that a client can use, keeps keys out of its logs, and stops cleanly on SIGTERM', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'cardsync-cli-'));
    dirs.push(stateDir);
    const cli = startCliProcess([
      'sandbox',
      '--port',
      '0',
      '--seed',
      'cli-test',
      '--merchants',
      '3',
      '--currency',
      'USD,JPY',
      '--state-dir',
      stateDir,
      '--log-level',
      'debug',
    ]);
    const info = JSON.parse(await cli.firstLine()) as {
      baseUrl: string;
      caFile: string;
      stateDir: string;
      merchants: { merchantId: string; apiKey: string; currency: string }[];
    };
    expect(info.baseUrl).toMatch(/^https:\/\/localhost:\d+$/);
    expect(info.stateDir).toBe(stateDir);
    expect(info.merchants.map((m) => m.currency)).toEqual(['USD', 'JPY', 'USD']);
    const agent = new Agent({ connect: { ca: await readFile(info.caFile, 'utf8') } });
    try {
      for (const merchant of info.merchants) {
        const response = await request(`${info.baseUrl}/merchants/balance`, {
          headers: { 'x-api-key': merchant.apiKey },
          dispatcher: agent,
        });
        const body = (await response.body.json()) as {
          data: { balance: string; currency: string };
        };
        expect(response.statusCode).toBe(200);
        expect(body.data.currency).toBe(merchant.currency);
        expect(body.data.balance).not.toMatch(/^0(\.0+)?$/);
      }
    } finally {
      await agent.close();
    }
    cli.child.kill('SIGTERM');
    expect(await cli.exited()).toBe(0);
    const logs = cli.stderr();
    expect(logs).toContain('sandbox listening');
    for (const merchant of info.merchants) expect(logs).not.toContain(merchant.apiKey);
    for (const line of logs.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  });

  it('takes --json, as every command does (job-interface.md): the same one JSON line, and an error object when it cannot start', async () => {
    const cli = startCliProcess(['sandbox', '--json', '--log-level', 'silent']);
    const info = JSON.parse(await cli.firstLine()) as { baseUrl: string; merchants: unknown[] };
    expect(info.baseUrl).toMatch(/^https:\/\/localhost:\d+$/);
    expect(info.merchants).toHaveLength(2);
    cli.child.kill('SIGTERM');
    expect(await cli.exited()).toBe(0);
    const refused = await runCliProcess(['sandbox', '--json', '--merchants', '0']);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout)).toMatchObject({
      exitCode: 2,
      error: { message: expect.stringMatching(/--merchants must be a whole number/) },
    });
  });

  it.each([
    [['sandbox', '--port', 'abc'], '--port must be a whole number from 0 to 65535'],
    [['sandbox', '--merchants', '0'], '--merchants must be a whole number from 1 to 100'],
    [['sandbox', '--currency', 'USD,XYZ'], '--currency must be ISO 4217 codes'],
    [['sandbox', '--currency', ''], 'unknown: ""\n'],
    [['sandbox', '--currency', 'USD,,JPY'], 'unknown: ""\n'],
    [['sandbox', '--failure-rate', '1.5'], '--failure-rate must be a number from 0 to 1'],
    [['sandbox', '--processing-delay', 'soon'], '--processing-delay must be milliseconds'],
    [['sandbox', '--bogus'], "unknown option '--bogus'"],
    [['frobnicate'], "unknown command 'frobnicate'"],
  ])('exits 2 with a line naming the problem for %j', async (args, expected) => {
    const result = await runCliProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
  });

  it('generates a world on request and names each journal and the ground-truth manifest', async () => {
    const cli = startCliProcess([
      'sandbox',
      '--seed',
      'cli-world',
      '--cards',
      '40',
      '--transactions',
      '400',
      '--days',
      '20',
      '--anomalies',
      '1',
      '--log-level',
      'warn',
    ]);
    try {
      const info = JSON.parse(await cli.firstLine()) as {
        merchants: { merchantId: string; journalFile: string }[];
        groundTruthFile: string;
      };
      for (const merchant of info.merchants) {
        const journal = await readFile(merchant.journalFile, 'utf8');
        expect(journal.split('\r\n')[0]).toBe(
          'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo',
        );
        expect(journal).toContain(',ISSUE,');
        expect(journal).toContain(',TOPUP,');
      }
      const truth = JSON.parse(await readFile(info.groundTruthFile, 'utf8')) as {
        seed: string;
        findings: { check: string }[];
      };
      expect(truth.seed).toBe('cli-world');
      expect(new Set(truth.findings.map((f) => f.check)).size).toBe(15);
    } finally {
      cli.child.kill('SIGTERM');
      expect(await cli.exited()).toBe(0);
    }
  });

  it.each([
    [['sandbox', '--transactions', '100'], '--transactions and --anomalies need --cards'],
    [
      ['sandbox', '--cards', '50', '--transactions', '10'],
      '--transactions must be at least --cards (50)',
    ],
    [['sandbox', '--cards', '0'], '--cards must be a whole number from 1'],
  ])('refuses an inconsistent world request %j with exit 2', async (args, expected) => {
    const result = await runCliProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(expected);
  });

  it('serves an inline --fault rule and refuses a malformed one with exit 2', async () => {
    const cli = startCliProcess([
      'sandbox',
      '--fault',
      '{"kind":"server-error","status":503,"times":1}',
      '--log-level',
      'warn',
    ]);
    try {
      const info = JSON.parse(await cli.firstLine()) as {
        baseUrl: string;
        caFile: string;
        merchants: { apiKey: string }[];
      };
      const agent = new Agent({ connect: { ca: await readFile(info.caFile, 'utf8') } });
      try {
        const call = () =>
          request(`${info.baseUrl}/merchants/balance`, {
            headers: { 'x-api-key': info.merchants[0]?.apiKey ?? '' },
            dispatcher: agent,
          });
        const first = await call();
        expect(first.statusCode).toBe(503);
        expect(((await first.body.json()) as { code: string }).code).toBe('SERVICE_UNAVAILABLE');
        const second = await call();
        expect(second.statusCode).toBe(200);
        await second.body.dump();
      } finally {
        await agent.close();
      }
    } finally {
      cli.child.kill('SIGTERM');
      expect(await cli.exited()).toBe(0);
    }
    const bad = await runCliProcess(['sandbox', '--fault', '{"kind":"server-error","status":418}']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--fault #1.status');
    const notJson = await runCliProcess(['sandbox', '--fault', '{kind']);
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain('--fault #1 is not JSON');
  });

  it('exits 2 with one line naming the flag when the port, host or state directory cannot be used', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dir = await mkdtemp(join(tmpdir(), 'cardsync-cli-'));
    dirs.push(dir);
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a folder\n');
    const junkState = join(dir, 'junk-state');
    await mkdir(junkState);
    await writeFile(join(junkState, 'sandbox.sqlite'), 'not a database\n');
    try {
      for (const [args, expected] of [
        [['--port', String(port)], new RegExp(`^cardsync: --port ${port}: .*\\(EADDRINUSE\\)`)],
        [['--host', '999.1.1.1'], /^cardsync: --host 999\.1\.1\.1: /],
        [['--state-dir', file], /^cardsync: --state-dir .*a-file: .*\(EEXIST\)/],
        [['--state-dir', join(file, 'below')], /^cardsync: --state-dir .*below: .*\(ENOTDIR\)/],
        [['--state-dir', junkState], /^cardsync: --state-dir .*junk-state: .*\(SQLITE_NOTADB\)/],
      ] as const) {
        const result = await runCliProcess(['sandbox', '--log-level', 'silent', ...args]);
        expect(result.code, result.stderr).toBe(2);
        expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(expected)]);
        expect(result.stdout).toBe('');
      }
    } finally {
      taken.close();
    }
  }, 30_000);

  it('exits 2 naming --state-dir for a folder of something else, and writes nothing into it', async () => {
    // A mistyped --state-dir (the mirror's folder, a home folder) must not gain a sandbox.sqlite
    // and a tls/ folder beside the files it holds.
    const dir = await mkdtemp(join(tmpdir(), 'cardsync-cli-'));
    dirs.push(dir);
    await writeFile(join(dir, 'mirror.sqlite'), 'an operator file\n');
    await mkdir(join(dir, 'reports'));
    const result = await runCliProcess(
      ['sandbox', '--log-level', 'silent', '--port', '0', '--state-dir', dir],
      {},
      { timeoutMs: 15_000 },
    );
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `cardsync: --state-dir ${dir}: expected a missing or empty folder, or a sandbox's state, it holds mirror.sqlite, reports`,
    ]);
    expect(result.stdout).toBe('');
    expect((await readdir(dir)).sort()).toEqual(['mirror.sqlite', 'reports']);
  }, 30_000);

  it('starts on a state directory left with only its tls/ folder, journals and manifest', async () => {
    // What a sandbox writes beside its sandbox.sqlite is its own: deleting sandbox.sqlite to
    // start afresh in the same folder is allowed.
    const dir = await mkdtemp(join(tmpdir(), 'cardsync-cli-'));
    dirs.push(dir);
    const first = startCliProcess([
      'sandbox',
      '--log-level',
      'silent',
      '--port',
      '0',
      '--state-dir',
      dir,
      '--cards',
      '4',
      '--anomalies',
      '0',
    ]);
    await first.firstLine();
    first.child.kill('SIGTERM');
    expect(await first.exited()).toBe(0);
    for (const name of await readdir(dir)) {
      if (name.startsWith('sandbox.sqlite')) await rm(join(dir, name));
    }
    const again = startCliProcess(['sandbox', '--port', '0', '--state-dir', dir]);
    try {
      const info = JSON.parse(await again.firstLine()) as { stateDir: string };
      expect(info.stateDir).toBe(dir);
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited()).toBe(0);
    }
  }, 60_000);

  it.each([
    ['--host', /^cardsync: --host: expected an address or host name, got ""$/],
    ['--state-dir', /^cardsync: --state-dir: expected a path, got ""$/],
    ['--faults', /^cardsync: --faults: expected a path, got ""$/],
    ['--seed', /^cardsync: --seed: expected a seed of 1 character or more, got ""$/],
  ])(
    'exits 2 naming %s when it is given empty, instead of taking every interface, the working folder or an empty seed',
    async (flag, expected) => {
      const cwd = await mkdtemp(join(tmpdir(), 'cardsync-cli-'));
      dirs.push(cwd);
      const result = await runCliProcess(
        ['sandbox', '--log-level', 'silent', flag, ''],
        {},
        {
          cwd,
          timeoutMs: 10_000,
        },
      );
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(expected)]);
      expect(result.stdout).toBe('');
      expect(await readdir(cwd)).toEqual([]);
    },
  );

  it('removes the state directory a failed start created, parents included, and leaves one that existed', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const dir = await mkdtemp(join(tmpdir(), 'cardsync-cli-'));
    dirs.push(dir);
    // An empty folder, as a sandbox's state directory may be (one of other files is refused).
    const existing = join(dir, 'existing');
    await mkdir(existing);
    const fresh = join(dir, 'new-parent', 'state');
    try {
      for (const args of [
        ['--port', String(port), '--merchants', '3'],
        ['--host', '999.1.1.1', '--merchants', '3'],
        ['--port', String(port), '--cards', '20', '--transactions', '40', '--days', '3'],
      ]) {
        const result = await runCliProcess([
          'sandbox',
          '--log-level',
          'silent',
          '--state-dir',
          fresh,
          ...args,
        ]);
        expect(result.code, result.stderr).toBe(2);
        expect(existsSync(join(dir, 'new-parent')), args.join(' ')).toBe(false);
        const kept = await runCliProcess([
          'sandbox',
          '--log-level',
          'silent',
          '--state-dir',
          existing,
          ...args,
        ]);
        expect(kept.code, kept.stderr).toBe(2);
        expect(existsSync(existing), args.join(' ')).toBe(true);
      }
    } finally {
      taken.close();
    }
    // The next start in the same place is a fresh one: two merchants, not the failed start's three.
    const cli = startCliProcess(['sandbox', '--port', '0', '--state-dir', fresh]);
    try {
      const info = JSON.parse(await cli.firstLine()) as { merchants: unknown[] };
      expect(info.merchants).toHaveLength(2);
    } finally {
      cli.child.kill('SIGTERM');
      expect(await cli.exited()).toBe(0);
    }
  }, 60_000);

  it('answers --help with exit 0', async () => {
    const result = await runCliProcess(['sandbox', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--processing-delay');
  });
});
