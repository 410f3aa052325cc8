import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../support/cli-process.js';

const PROBE = fileURLToPath(new URL('./loaded-modules-probe.mjs', import.meta.url));
const DIST = fileURLToPath(new URL('../../dist/', import.meta.url));

/** What a finished run loaded: npm packages by name, and this project's folders under dist/. */
interface Loaded {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly packages: ReadonlySet<string>;
  readonly folders: ReadonlySet<string>;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cardsync-startup-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let runs = 0;

/** Run the built `cardsync ...args` under the probe, in an empty folder, without CARDSYNC_* settings. */
async function loadedBy(args: readonly string[]): Promise<Loaded> {
  const list = join(dir, `loaded-${++runs}.txt`);
  // Without the CARDSYNC_* settings of the environment the tests run in.
  const unset = Object.fromEntries(
    Object.keys(process.env)
      .filter((key) => key.startsWith('CARDSYNC_'))
      .map((key) => [key, undefined]),
  );
  const { code, stdout, stderr } = await runCliProcess(
    args,
    { ...unset, LOADED_MODULES_FILE: list },
    { nodeArgs: ['--import', PROBE], cwd: dir },
  );
  const packages = new Set<string>();
  const folders = new Set<string>();
  for (const line of (await readFile(list, 'utf8')).split('\n')) {
    if (!line.startsWith('file:') && !line.startsWith(sep)) continue;
    const path = line.startsWith('file:') ? fileURLToPath(line) : line;
    const inPackage = path.split(`${sep}node_modules${sep}`).at(-1);
    if (inPackage !== undefined && inPackage !== path) {
      const [scope = '', name = ''] = inPackage.split(sep);
      packages.add(scope.startsWith('@') ? `${scope}/${name}` : scope);
    } else if (path.startsWith(DIST)) {
      folders.add(path.slice(DIST.length).split(sep)[0] ?? '');
    }
  }
  return { code, stdout, stderr, packages, folders };
}

/** Packages only the embedded service uses. */
const SERVICE_PACKAGES = [
  'fastify',
  '@fastify/rate-limit',
  '@fastify/swagger',
  'selfsigned',
  'pure-rand',
];

/** ... and those only the sync, the reconciliation, the reports or the scheduler use. */
const SERVICE_AND_JOB_PACKAGES = [
  ...SERVICE_PACKAGES,
  'node-cron',
  'csv-stringify',
  'pino',
  'p-limit',
];

/** Names in `names` that `loaded` holds. */
function among(loaded: ReadonlySet<string>, names: readonly string[]): string[] {
  return names.filter((name) => loaded.has(name));
}

describe('what cardsync loads before a command runs', () => {
  it.each(['--help', 'sync --help', 'cards issue --help'])(
    '`cardsync %s` loads neither the embedded service, the job nor the logger',
    async (command) => {
      const run = await loadedBy(command.split(' '));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^Usage: cardsync/);
      // The probe saw both kinds of module: the CLI's own (ESM) and commander's (CommonJS).
      expect(run.folders).toContain('cli');
      expect(run.packages).toContain('commander');
      expect(among(run.packages, SERVICE_AND_JOB_PACKAGES)).toEqual([]);
      expect(among(run.folders, ['sandbox', 'sync', 'runner', 'reports', 'log'])).toEqual([]);
    },
  );

  it('`cardsync --help` loads neither SQLite, the HTTP client nor the config loader', async () => {
    const run = await loadedBy(['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(among(run.packages, ['better-sqlite3', 'kysely', 'undici', 'ajv', 'csv-parse'])).toEqual(
      [],
    );
    expect(among(run.folders, ['mirror', 'api', 'config', 'recon'])).toEqual([]);
  });

  // `cards list --status` checks its value against CARD_STATUSES, which lives apart from the
  // TypeBox schemas (src/contract/card-statuses.ts): TypeBox alone is some 20 MiB.
  it('`cardsync --help` does not load TypeBox', async () => {
    const run = await loadedBy(['--help']);
    expect(run.code, run.stderr).toBe(0);
    expect(among(run.packages, ['typebox'])).toEqual([]);
  });

  it('`cardsync sync` loads the sync and its client, never the embedded service or the reports', async () => {
    const run = await loadedBy(['sync', '--db', join('data', 'mirror.sqlite')]);
    // No upstream is configured: a usage error, raised once the sync's modules are loaded.
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('CARDSYNC_BASE_URL');
    expect(run.folders).toContain('sync');
    expect(run.packages).toContain('undici');
    expect(among(run.packages, SERVICE_PACKAGES)).toEqual([]);
    expect(among(run.folders, ['sandbox', 'runner', 'reports'])).toEqual([]);
  });

  // The client reads the contract from src/contract/client-contract.ts, plain data; TypeBox cost
  // about 0.2 s of every run's start-up. The config file's schema loads only with a file.
  it('`cardsync sync` does not load TypeBox', async () => {
    const run = await loadedBy(['sync', '--db', join('data', 'mirror.sqlite')]);
    expect(run.code).toBe(2);
    expect(run.folders).toContain('api');
    expect(among(run.packages, ['typebox'])).toEqual([]);
  });
});
