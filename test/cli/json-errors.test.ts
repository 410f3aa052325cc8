import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireMirrorLock } from '../../src/mirror/mirror-lock.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { type CliResult, runCliProcess } from '../support/cli-process.js';
import { type JobFixture, messageLines, startJobFixture } from './job-fixture.js';

interface ErrorJson {
  exitCode: number;
  outcome: string;
  error: { code: string | null; message: string };
}

/** stdout as exactly one JSON document (one line), or the test fails saying what was there. */
function oneJson(result: CliResult): Record<string, unknown> {
  const lines = result.stdout.split('\n').filter(Boolean);
  expect(lines, `stdout: ${result.stdout}\nstderr: ${result.stderr}`).toHaveLength(1);
  return JSON.parse(lines[0]!) as Record<string, unknown>;
}

/** A `--json` command that ended non-zero without a result: one error object on stdout, one line on stderr. */
function expectErrorJson(result: CliResult, exitCode: number, outcome: string): ErrorJson {
  expect(result.code, result.stderr).toBe(exitCode);
  const json = oneJson(result) as unknown as ErrorJson;
  expect(json).toMatchObject({ exitCode, outcome, error: { message: expect.any(String) } });
  expect(Object.keys(json).sort()).toEqual(['error', 'exitCode', 'outcome']);
  expect(Object.keys(json.error).sort()).toEqual(['code', 'message']);
  // The human line still goes to stderr, and says the same as the JSON.
  expect(messageLines(result.stderr)).toEqual([expect.stringContaining(json.error.message)]);
  return json;
}

describe('--json when a command ends without a result', () => {
  let f: JobFixture;

  beforeAll(async () => {
    f = await startJobFixture({
      seed: 'json-errors',
      world: { cards: 5, transactions: 20, days: 5, anomaliesPerCode: 0 },
    });
    await openMirror(f.db).close();
  }, 30_000);
  afterAll(async () => f?.close());

  it('prints one error object naming exit 2, with a code, for a bad setting, a bad flag, or no mirror', async () => {
    const cases = [
      [['run', '--json', '--grace-minutes', 'soon'], {}, 'CONFIG_INVALID', /--grace-minutes/],
      [['sync', '--json', '--concurrency', 'many'], {}, 'CONFIG_INVALID', /--concurrency/],
      [['reconcile', '--json', '--tolerance', 'X=1'], {}, 'CONFIG_INVALID', /--tolerance/],
      [['reconcile', '--json', '--db', `${f.db}.missing`], {}, 'MIRROR_MISSING', /no mirror/],
      [
        ['findings', 'list', '--json', '--db', `${f.db}.missing`],
        {},
        'MIRROR_MISSING',
        /no mirror/,
      ],
      [['sandbox', '--json', '--cards', 'abc'], {}, 'USAGE_INVALID', /--cards/],
      [['demo', '--json', '--dir', ''], {}, 'USAGE_INVALID', /--dir/],
      [['run', '--json', '--fail-on', 'fatal'], {}, 'commander.invalidArgument', /--fail-on/],
      [['sync', '--json'], { CARDSYNC_BASE_URL: 'http://plain' }, 'CONFIG_INVALID', /BASE_URL/],
      // A group given --json without its command: its commands have --json.
      [['cards', '--json'], {}, 'commander.unknownOption', /--json/],
      [['findings', '--json'], {}, 'commander.unknownOption', /--json/],
    ] as const;
    for (const [args, env, code, message] of cases) {
      const result = await runCliProcess(args, { ...f.env, ...env });
      const json = expectErrorJson(result, 2, 'usage_error');
      expect(json.error.code, args.join(' ')).toBe(code);
      expect(json.error.message).toMatch(message);
      expect(result.stdout).not.toContain(f.env.CARDSYNC_API_KEY);
    }
  }, 60_000);

  it('prints one error object naming exit 5 while another run holds the lock', async () => {
    const mirror = openMirror(f.db);
    const lock = acquireMirrorLock(mirror.db, { runId: 'held-by-json-test' });
    try {
      for (const command of ['run', 'sync', 'reconcile']) {
        const result = await runCliProcess([command, '--json'], f.env);
        const json = expectErrorJson(result, 5, 'locked');
        expect(json.error).toEqual({
          code: 'MIRROR_LOCKED',
          message: expect.stringContaining('held-by-json-test'),
        });
      }
    } finally {
      lock.release();
      await mirror.close();
    }
  }, 60_000);

  it('keeps the result as the only document when there is one (exit 3: the run ran)', async () => {
    for (const command of ['run', 'sync']) {
      const result = await runCliProcess([command, '--json'], {
        ...f.env,
        CARDSYNC_API_KEY: 'sk_test_wrong_json',
      });
      expect(result.code, result.stderr).toBe(3);
      const json = oneJson(result);
      expect(json).not.toHaveProperty('error');
      expect(json).toHaveProperty(command === 'run' ? 'sync.outcome' : 'outcome', 'unauthorized');
      expect(result.stdout + result.stderr).not.toContain('sk_test_wrong_json');
    }
  }, 60_000);

  it('prints one error object for a merchant read the upstream refused (exit 3) or could not answer (exit 4)', async () => {
    const refused = await runCliProcess(['balance', '--json'], {
      ...f.env,
      CARDSYNC_API_KEY: 'sk_test_wrong_json',
    });
    expect(expectErrorJson(refused, 3, 'unauthorized').error.code).toBe('UPSTREAM_UNAUTHORIZED');
    expect(refused.stdout + refused.stderr).not.toContain('sk_test_wrong_json');
    await f.t.control.call('PUT', '/_control/faults', {
      body: {
        rules: [{ kind: 'server-error', status: 503, match: { operation: 'getMerchantBalance' } }],
      },
    });
    try {
      const unavailable = await runCliProcess(['balance', '--json'], f.env);
      expect(expectErrorJson(unavailable, 4, 'sync_incomplete').error.code).toMatch(/^UPSTREAM_/);
    } finally {
      await f.t.control.call('DELETE', '/_control/faults');
    }
  }, 60_000);

  it('prints nothing extra without --json', async () => {
    const result = await runCliProcess(['run', '--grace-minutes', 'soon'], f.env);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
  });
});
