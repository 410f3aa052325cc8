import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TestSandbox } from './test-sandbox.js';

/** The built CLI (`npm test` builds it first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/**
 * The environment of a command against merchant `merchant` of the test sandbox `t`, its mirror
 * at `db`; `CARDSYNC_API_KEY_FILE` emptied, so a key file of the host's environment is not read.
 */
export function sandboxCliEnv(t: TestSandbox, db: string, merchant = 0): Record<string, string> {
  return {
    CARDSYNC_BASE_URL: t.sandbox.baseUrl,
    CARDSYNC_API_KEY: t.sandbox.merchants[merchant]!.apiKey,
    CARDSYNC_API_KEY_FILE: '',
    CARDSYNC_CA_FILE: t.sandbox.caFile,
    CARDSYNC_DB: db,
  };
}

/**
 * `env` without the variables that name a single merchant (base URL, key, key file, CA file,
 * merchant id): a command run with it reads its merchants from the config file alone.
 */
export function configFileEnv(env: Record<string, string>): Record<string, string> {
  return {
    ...env,
    CARDSYNC_BASE_URL: '',
    CARDSYNC_API_KEY: '',
    CARDSYNC_API_KEY_FILE: '',
    CARDSYNC_CA_FILE: '',
    CARDSYNC_MERCHANT_ID: '',
  };
}

/** The uid of `nobody`, which the tests run the CLI as when they need file permissions to bind. */
const NOBODY = 65_534;

/**
 * Who to run the CLI as for a test that needs file permissions to bind: this user when not
 * root; `nobody` under root (root passes every permission check) when `nobody` can read the
 * built CLI; null when it cannot (a checkout under a folder only root may enter), and the test
 * cannot run here.
 */
export function unprivilegedUser(): { readonly uid?: number } | null {
  if (process.getuid?.() !== 0) return {};
  const probe = spawnSync(
    process.execPath,
    ['-e', `require('node:fs').accessSync(${JSON.stringify(CLI)}, 4)`],
    { uid: NOBODY, gid: NOBODY, stdio: 'ignore' },
  );
  return probe.status === 0 ? { uid: NOBODY } : null;
}

/** A finished CLI run. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run `cardsync ...args` to completion. `env` adds to this process's environment (a key set to
 * undefined is left out); `nodeArgs` go to node before the CLI (`--import`, ...); `user` runs it
 * as that uid and gid (only root may), where file permissions must bind. With `timeoutMs`, a
 * process still running then is killed (code null), so a hang fails the test that expected an
 * exit code instead of blocking it.
 */
export async function runCliProcess(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  options: { nodeArgs?: readonly string[]; cwd?: string; user?: number; timeoutMs?: number } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: 'pipe',
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.user === undefined ? {} : { uid: options.user, gid: options.user }),
  });
  const timer =
    options.timeoutMs === undefined
      ? undefined
      : setTimeout(() => child.kill('SIGKILL'), options.timeoutMs);
  try {
    return await finished(child);
  } finally {
    clearTimeout(timer);
  }
}

/** The output and exit code of `child` (stdio piped), once it has ended. */
export async function finished(child: ChildProcessWithoutNullStreams): Promise<CliResult> {
  child.stdin.end();
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'close')) as [number | null];
  return { code, stdout, stderr };
}

/** A CLI process left running, with its output so far. */
export interface RunningCli {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first complete stdout line. */
  firstLine(): Promise<string>;
  /** Resolves with the exit code. */
  exited(): Promise<number | null>;
}

/** Start `cardsync ...args` and keep it running. */
export function startCliProcess(args: readonly string[], env: NodeJS.ProcessEnv = {}): RunningCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: 'pipe',
  });
  let out = '';
  let err = '';
  const exit = once(child, 'close').then(([code]) => code as number | null);
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const line = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) resolve(out.slice(0, newline));
    });
    void exit.then((code) =>
      reject(new Error(`cardsync exited with ${code} before printing a line: ${err}`)),
    );
  });
  // A process that is killed or ends before a line is no error unless someone waits for it.
  line.catch(() => {});
  return { child, stdout: () => out, stderr: () => err, firstLine: () => line, exited: () => exit };
}

/**
 * Run `cardsync ...args | head ...headArgs` in bash, a real pipe as an operator's shell makes
 * (a spawned child's stdout is a socket, which behaves differently once closed): stdout is what
 * head printed, stderr and the code are cardsync's.
 */
export async function runCliThroughHead(
  args: readonly string[],
  headArgs: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  // pipefail: the pipeline's status is cardsync's, since head ends 0.
  const script =
    'set -o pipefail; node="$1"; cli="$2"; shift 2; "$node" "$cli" "$@" | head $HEAD_ARGS';
  const child = spawn('bash', ['-c', script, 'bash', process.execPath, CLI, ...args], {
    env: { ...process.env, ...env, HEAD_ARGS: headArgs.join(' ') },
    stdio: 'pipe',
  });
  return finished(child);
}

/**
 * `cardsync ...args` with its `full` stream (stdout or stderr) on /dev/full, where every write
 * fails with ENOSPC, as on a full disk; the code and what the other stream carried.
 */
export async function runCliWithFullStream(
  full: 'stdout' | 'stderr',
  args: readonly string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; other: string }> {
  const device = openSync('/dev/full', 'w');
  try {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', full === 'stdout' ? device : 'pipe', full === 'stderr' ? device : 'pipe'],
    });
    let other = '';
    (full === 'stdout' ? child.stderr : child.stdout)?.on('data', (chunk: Buffer) => {
      other += chunk.toString();
    });
    const [code] = (await once(child, 'close')) as [number | null];
    return { code, other };
  } finally {
    closeSync(device);
  }
}
