import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess, sandboxCliEnv } from '../support/cli-process.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';
import { messageLines } from './job-fixture.js';

describe('cardsync sync on bad input', () => {
  let t: TestSandbox;
  let dir: string;
  let db: string;
  let good: Record<string, string>;

  beforeAll(async () => {
    t = await startTestSandbox({ merchants: 1, seed: 'sync-cli' });
    dir = await mkdtemp(join(tmpdir(), 'cardsync-sync-cli-'));
    db = join(dir, 'data', 'mirror.sqlite');
    good = sandboxCliEnv(t, db);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  const cases: [string, () => Record<string, string>, string[], RegExp][] = [
    [
      'an http:// base URL',
      () => ({ ...good, CARDSYNC_BASE_URL: 'http://localhost:1' }),
      [],
      /CARDSYNC_BASE_URL.*https:\/\//,
    ],
    ['a missing key', () => ({ ...good, CARDSYNC_API_KEY: '' }), [], /CARDSYNC_API_KEY/],
    [
      'a key put in CARDSYNC_API_KEY_FILE by mistake (without echoing it)',
      () => ({ ...good, CARDSYNC_API_KEY: '', CARDSYNC_API_KEY_FILE: good.CARDSYNC_API_KEY! }),
      [],
      /^cardsync: CARDSYNC_API_KEY_FILE: .*cannot read the file it names \(ENOENT\)$/,
    ],
    [
      'an unreadable CA file',
      () => ({ ...good, CARDSYNC_CA_FILE: join(dir, 'nope.pem') }),
      [],
      /CARDSYNC_CA_FILE/,
    ],
    ['an unknown flag', () => good, ['--stauts'], /unknown option '--stauts'/],
    ['a bad number', () => good, ['--concurrency', 'many'], /--concurrency/],
    [
      'a --since in the future',
      () => good,
      ['--since', '2099-01-01'],
      /^cardsync: --since: expected an instant that is not in the future/,
    ],
    [
      'a --since in year 0, which the upstream refuses on every run (exit 4 for ever)',
      () => good,
      ['--since', '0000-01-01'],
      /^cardsync: --since: expected an instant from 0001-01-01T00:00:00Z on/,
    ],
  ];

  for (const [name, env, flags, message] of cases) {
    it(`exits 2 with one line naming ${name}, and writes nothing`, async () => {
      const result = await runCliProcess(['sync', ...flags], env());
      expect(result.code).toBe(2);
      // Besides the `run finished` JSON line, one plain line.
      const lines = messageLines(result.stderr);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(message);
      expect(result.stderr).not.toContain(good.CARDSYNC_API_KEY);
      expect(existsSync(db)).toBe(false);
    });
  }

  it('syncs from --since 0001-01-01, the earliest instant it takes, instead of exit 4 for ever', async () => {
    const result = await runCliProcess(['sync', '--since', '0001-01-01', '--json'], {
      ...good,
      CARDSYNC_DB: join(dir, 'year-one', 'mirror.sqlite'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'done' });
  });

  it('names the flag, variable or config file key that gave a mirror or a CA file it cannot use', async () => {
    const notes = join(dir, 'notes.txt');
    await writeFile(notes, 'not a database, just notes\n');
    const junkCa = join(dir, 'junk-ca.pem');
    await writeFile(junkCa, '-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n');
    const config = join(dir, 'cardsync.json');
    await writeFile(config, JSON.stringify({ db: 'notes.txt' }));
    for (const [args, env, message] of [
      [['--db', notes], {}, /^cardsync: --db: cannot open the mirror .*notes\.txt/],
      [[], { CARDSYNC_DB: notes }, /^cardsync: CARDSYNC_DB: cannot open the mirror/],
      [['--config', config], { CARDSYNC_DB: '' }, /^cardsync: db: cannot open the mirror/],
      [
        ['--ca-file', junkCa],
        {},
        /^cardsync: --ca-file: expected a PEM certificate in .*junk-ca\.pem/,
      ],
      [[], { CARDSYNC_CA_FILE: junkCa }, /^cardsync: CARDSYNC_CA_FILE: expected a PEM certificate/],
    ] as const) {
      const result = await runCliProcess(['sync', ...args], { ...good, ...env });
      expect(result.code, result.stderr).toBe(2);
      expect(messageLines(result.stderr)).toEqual([expect.stringMatching(message)]);
    }
    expect(existsSync(db)).toBe(false);
  });

  it('exits 3 when the upstream refuses the key, naming where it was read but not the key', async () => {
    const result = await runCliProcess(['sync'], { ...good, CARDSYNC_API_KEY: 'sk_test_wrong' });
    expect(result.code).toBe(3);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => !l.startsWith('{')),
    ).toEqual([
      'cardsync: the upstream refused the key of default (401), read from CARDSYNC_API_KEY',
    ]);
    expect(result.stderr + result.stdout).not.toContain('sk_test_wrong');
    const keyFile = join(dir, 'wrong.key');
    await writeFile(keyFile, 'sk_test_wrong_in_a_file\n');
    const fromFile = await runCliProcess(['sync'], {
      ...good,
      CARDSYNC_API_KEY: '',
      CARDSYNC_API_KEY_FILE: keyFile,
    });
    expect(fromFile.code).toBe(3);
    expect(fromFile.stderr).toContain(
      'cardsync: the upstream refused the key of default (401), read from the file CARDSYNC_API_KEY_FILE names\n',
    );
    expect(fromFile.stderr + fromFile.stdout).not.toContain('sk_test_wrong_in_a_file');
  });

  it('syncs and prints a JSON result with --json, exit 0', async () => {
    const result = await runCliProcess(['sync', '--json'], good);
    expect(result.code, result.stderr).toBe(0);
    const parsed = JSON.parse(result.stdout) as { outcome: string; merchants: unknown[] };
    expect(parsed.outcome).toBe('done');
    expect(parsed.merchants).toHaveLength(1);
    expect(result.stderr + result.stdout).not.toContain(good.CARDSYNC_API_KEY);
  });

  it('reads the key from CARDSYNC_API_KEY_FILE', async () => {
    const keyFile = join(dir, 'key');
    await writeFile(keyFile, `${good.CARDSYNC_API_KEY}\n`);
    await chmod(keyFile, 0o640);
    const result = await runCliProcess(['sync', '--json'], {
      ...good,
      CARDSYNC_API_KEY: '',
      CARDSYNC_API_KEY_FILE: keyFile,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('can be read by every user');
  });

  it('warns, naming the setting and not the path, when every user can read the key file', async () => {
    const keyFile = join(dir, 'open-key');
    await writeFile(keyFile, `${good.CARDSYNC_API_KEY}\n`);
    await chmod(keyFile, 0o644);
    const result = await runCliProcess(['sync', '--json'], {
      ...good,
      CARDSYNC_API_KEY: '',
      CARDSYNC_API_KEY_FILE: keyFile,
    });
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr
      .split('\n')
      .filter((line) => line.includes('can be read by every user'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; source: string });
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        source: 'default',
        msg: expect.stringMatching(/^CARDSYNC_API_KEY_FILE: the key file it names .* chmod 600$/),
      }),
    ]);
    expect(result.stderr).not.toContain(keyFile);
    expect(result.stderr + result.stdout).not.toContain(good.CARDSYNC_API_KEY);
  });
});
