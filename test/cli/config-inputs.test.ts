import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, runCliProcess } from '../support/cli-process.js';
import { messageLines } from './job-fixture.js';

/**
 * Configuration inputs an operator can get wrong, through the built CLI: each is exit 2 with one
 * line naming the setting, within seconds, with nothing created and no secret printed. No
 * upstream is needed: every case is refused before the first request.
 */
describe('cardsync sync on a bad configuration input', () => {
  let dir: string;
  let fifo: string;
  let db: string;
  /** Every CARDSYNC_ variable of the job cleared, so the host's own cannot leak in. */
  let clean: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-config-inputs-'));
    fifo = join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    db = join(dir, 'data', 'mirror.sqlite');
    clean = {
      CARDSYNC_BASE_URL: 'https://127.0.0.1:9',
      CARDSYNC_API_KEY: 'sk_test_config_inputs_4711',
      CARDSYNC_API_KEY_FILE: '',
      CARDSYNC_CA_FILE: '',
      CARDSYNC_MERCHANT_ID: '',
      CARDSYNC_DB: db,
      CARDSYNC_REPORTS_DIR: join(dir, 'reports'),
      CARDSYNC_METRICS_FILE: '',
    };
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const sync = (env: Record<string, string>, args: string[] = []) =>
    runCliProcess(['sync', ...args], { ...clean, ...env }, { cwd: dir, timeoutMs: 10_000 });

  /** Exit 2, one line matching `message`, no mirror, no reports. */
  const expectRefused = (result: CliResult, message: RegExp) => {
    expect(result.code, `${result.stderr} (null: killed after hanging)`).toBe(2);
    expect(messageLines(result.stderr)).toEqual([expect.stringMatching(message)]);
    expect(existsSync(join(dir, 'data'))).toBe(false);
    expect(existsSync(join(dir, 'reports'))).toBe(false);
  };

  describe('a file setting that names no regular file', () => {
    it('refuses a FIFO as the key file instead of waiting for a writer forever', async () => {
      expectRefused(
        await sync({ CARDSYNC_API_KEY: '', CARDSYNC_API_KEY_FILE: fifo }),
        /^cardsync: CARDSYNC_API_KEY_FILE: expected a readable key file, the file it names is a FIFO, not a regular file$/,
      );
    }, 20_000);

    it('refuses a FIFO as the CA file', async () => {
      expectRefused(
        await sync({ CARDSYNC_CA_FILE: fifo }),
        /^cardsync: CARDSYNC_CA_FILE: expected a readable PEM file, .*pipe is a FIFO, not a regular file$/,
      );
    }, 20_000);

    it('refuses a FIFO as the config file', async () => {
      expectRefused(
        await sync({}, ['--config', fifo]),
        /^cardsync: --config: expected a readable JSON file, .*pipe is a FIFO, not a regular file$/,
      );
    }, 20_000);

    it('refuses a FIFO as a merchant’s apiKeyFile in the config file', async () => {
      const config = join(dir, 'fifo-key.json');
      await writeFile(
        config,
        JSON.stringify({
          merchants: [{ name: 'eu', baseUrl: 'https://127.0.0.1:9', apiKeyFile: 'pipe' }],
        }),
      );
      expectRefused(
        await sync({ CARDSYNC_API_KEY: '', CARDSYNC_BASE_URL: '' }, ['--config', config]),
        /^cardsync: merchants\[0\]\.apiKeyFile: expected a readable key file, the file it names is a FIFO/,
      );
    }, 20_000);

    it('refuses a device as the key file instead of reading /dev/zero until memory runs out', async () => {
      expectRefused(
        await sync({ CARDSYNC_API_KEY: '', CARDSYNC_API_KEY_FILE: '/dev/zero' }),
        /^cardsync: CARDSYNC_API_KEY_FILE: expected a readable key file, the file it names is a character device, not a regular file$/,
      );
    }, 20_000);

    it('refuses a key file too large to be a key, without reading it whole', async () => {
      const big = join(dir, 'big.key');
      await writeFile(big, 'x'.repeat(70_000));
      expectRefused(
        await sync({ CARDSYNC_API_KEY: '', CARDSYNC_API_KEY_FILE: big }),
        /^cardsync: CARDSYNC_API_KEY_FILE: expected a readable key file, the file it names is larger than 65536 bytes$/,
      );
    }, 20_000);

    it('still reads a key file through a symbolic link', async () => {
      await mkdir(join(dir, 'keys'), { recursive: true });
      await writeFile(join(dir, 'keys', 'real.key'), 'sk_test_linked_key\n');
      execFileSync('ln', ['-sf', join(dir, 'keys', 'real.key'), join(dir, 'keys', 'link.key')]);
      // Past the key: the CA file is the next thing read, and it is refused by name.
      expectRefused(
        await sync({
          CARDSYNC_API_KEY: '',
          CARDSYNC_API_KEY_FILE: join(dir, 'keys', 'link.key'),
          CARDSYNC_CA_FILE: join(dir, 'keys'),
        }),
        /^cardsync: CARDSYNC_CA_FILE: expected a readable PEM file, cannot read .*keys \(EISDIR\)$/,
      );
      expect(readdirSync(join(dir, 'keys')).sort()).toEqual(['link.key', 'real.key']);
    }, 20_000);
  });

  describe('a mirror whose folder cannot be made', () => {
    // mkdir answers ENOENT under /proc though /proc exists: Node's recursive mkdir takes that
    // for a missing parent and retries for ever, at full CPU and deaf to SIGTERM.
    it.runIf(process.platform === 'linux')(
      'refuses a mirror under /proc instead of spinning for ever',
      async () => {
        expectRefused(
          await sync({ CARDSYNC_DB: '/proc/cardsync-test/data/mirror.sqlite' }),
          /^cardsync: CARDSYNC_DB: cannot open the mirror \/proc\/cardsync-test\/data\/mirror\.sqlite: ENOENT: .*mkdir '\/proc\/cardsync-test'$/,
        );
      },
      20_000,
    );
  });
});
