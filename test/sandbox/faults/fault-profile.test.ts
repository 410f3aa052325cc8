import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultConfigError } from '../../../src/sandbox/faults/fault-config-error.js';
import { loadFaultProfile } from '../../../src/sandbox/faults/fault-profile.js';
import { runCliProcess, startCliProcess } from '../../support/cli-process.js';
import { startTestSandbox } from '../../support/test-sandbox.js';
import { rawCall } from './raw-call.js';

const PROFILE = {
  rules: [
    { id: 'slow-balance', kind: 'latency', ms: 5, match: { operation: 'getMerchantBalance' } },
    {
      id: 'busy-offerings',
      kind: 'rate-limit',
      retryAfterSeconds: 4,
      match: { operation: 'listOfferings' },
      times: 1,
    },
  ],
};

describe('fault lab: profile files', () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-faults-'));
    await writeFile(file('good.json'), JSON.stringify(PROFILE));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a profile through startSandbox: its rules are live from the first call', async () => {
    const rules = await loadFaultProfile(file('good.json'));
    const t = await startTestSandbox({ faults: rules });
    try {
      const first = await rawCall(t, 'GET', '/merchants/offerings');
      expect(first.status).toBe(429);
      expect(first.headers['retry-after']).toBe('4');
      expect((await rawCall(t, 'GET', '/merchants/offerings')).status).toBe(200);
      const listed = await t.control.get('/_control/faults');
      expect(listed.body.rules.map((r: { id: string; remaining: number | null }) => r)).toEqual([
        expect.objectContaining({ id: 'slow-balance', remaining: null }),
        expect.objectContaining({ id: 'busy-offerings', remaining: 0, fired: 1 }),
      ]);
    } finally {
      await t.close();
    }
  });

  it.each([
    [
      { rules: [{ kind: 'server-error', status: 404 }] },
      'rules[0].status must be one of 500, 502, 503',
    ],
    [{ rules: [{ kind: 'melt' }] }, 'rules[0].kind must be one of rate-limit, server-error'],
    [{ rules: [{ kind: 'latency' }] }, 'rules[0].ms is required for a latency rule'],
    [
      { rules: [{}, { kind: 'rate-limit', retryAfterSeconds: -1 }] },
      'rules[1].retryAfterSeconds must be >= 0',
    ],
    [{ rules: [{ kind: 'page-size', max: 100 }] }, 'rules[0].max must be <= 99'],
    [{ rules: [{ kind: 'reset', times: 0 }] }, 'rules[0].times must be >= 1'],
    [{ rules: [{ kind: 'reset', probability: 1.5 }] }, 'rules[0].probability must be <= 1'],
    [
      { rules: [{ kind: 'reset', colour: 'red' }] },
      'rules[0].colour is not a field of a reset rule',
    ],
    [
      { rules: [{ kind: 'truncate', match: { operation: 'listEverything' } }] },
      'rules[0].match.operation must be one of listCards',
    ],
    [
      { rules: [{ kind: 'commit-then-drop', match: { operation: 'listCards' } }] },
      'rules[0].match.operation must be one of issueCard',
    ],
    [{ rules: [{ kind: 'drift' }] }, 'rules[0].insert or rules[0].progress must be above 0'],
    [
      { rules: [{ kind: 'reset', match: { operation: 'getCard', minLimit: 2 } }] },
      'rules[0].match.minLimit applies to listCards and listTransactions only, not getCard',
    ],
    [
      { rules: [{ kind: 'commit-then-drop', match: { minLimit: 2 } }] },
      'rules[0].match.minLimit applies to listCards and listTransactions only, which a commit-then-drop rule never matches',
    ],
    [
      { rules: [{ kind: 'drift', insert: 1, match: { minLimit: 0 } }] },
      'rules[0].match.minLimit must be >= 1',
    ],
    [
      {
        rules: [
          { id: 'a', kind: 'reset' },
          { id: 'a', kind: 'truncate' },
        ],
      },
      'rules[1].id "a" is used twice',
    ],
    [{ rule: [] }, 'rule is not a field of a fault profile'],
    [{}, 'rules must be an array of rules'],
  ])('refuses the profile %j naming the field', async (profile, expected) => {
    await writeFile(file('bad.json'), JSON.stringify(profile));
    const error = await loadFaultProfile(file('bad.json')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FaultConfigError);
    expect((error as FaultConfigError).code).toBe('FAULT_RULE_INVALID');
    expect((error as FaultConfigError).message).toContain(expected);
  });

  it('refuses a file that is missing or not JSON as unreadable', async () => {
    await writeFile(file('broken.json'), '{"rules": [');
    for (const name of ['missing.json', 'broken.json']) {
      const error = await loadFaultProfile(file(name)).catch((e: unknown) => e);
      expect((error as FaultConfigError).code).toBe('FAULT_PROFILE_UNREADABLE');
    }
  });

  it("cardsync sandbox --faults FILE serves the profile's faults", async () => {
    const cli = startCliProcess(['sandbox', '--port', '0', '--faults', file('good.json')]);
    try {
      const info = JSON.parse(await cli.firstLine()) as {
        baseUrl: string;
        caFile: string;
        merchants: { apiKey: string }[];
      };
      const agent = new Agent({ connect: { ca: await readFile(info.caFile, 'utf8') } });
      try {
        const response = await request(`${info.baseUrl}/merchants/offerings`, {
          headers: { 'x-api-key': info.merchants[0]?.apiKey ?? '' },
          dispatcher: agent,
        });
        expect(response.statusCode).toBe(429);
        expect(response.headers['retry-after']).toBe('4');
        expect(((await response.body.json()) as { code: string }).code).toBe('RATE_LIMITED');
      } finally {
        await agent.close();
      }
    } finally {
      cli.child.kill('SIGTERM');
      expect(await cli.exited()).toBe(0);
    }
  });

  it('cardsync sandbox --faults with a bad profile exits 2 with a line naming the field', async () => {
    await writeFile(
      file('bad-cli.json'),
      JSON.stringify({ rules: [{ kind: 'server-error', status: 418 }] }),
    );
    const result = await runCliProcess(['sandbox', '--faults', file('bad-cli.json')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--faults');
    expect(result.stderr).toContain('rules[0].status must be one of 500, 502, 503');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stdout).toBe('');
    const missing = await runCliProcess(['sandbox', '--faults', file('nowhere.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read the file (ENOENT)');
  });

  it('cardsync sandbox --faults refuses a FIFO or a device instead of waiting on it', async () => {
    const fifo = file('profile-pipe');
    execFileSync('mkfifo', [fifo]);
    for (const [path, kind] of [
      [fifo, 'a FIFO'],
      ['/dev/zero', 'a character device'],
    ] as const) {
      const result = await runCliProcess(['sandbox', '--faults', path], {}, { timeoutMs: 10_000 });
      expect(result.code, `${result.stderr} (null: killed after hanging)`).toBe(2);
      expect(result.stderr).toContain(
        `--faults ${path}: cannot read the file (${kind}, not a regular file)`,
      );
      expect(result.stdout).toBe('');
    }
  }, 30_000);
});
