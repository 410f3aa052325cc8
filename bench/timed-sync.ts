import { spawn } from 'node:child_process';
import type { SyncResult } from '../src/sync/sync-result.js';
import { reapedChildrenCpuSeconds } from './cpu-time.js';
import { samplePeakRss } from './peak-rss-sampler.js';
import { type SandboxAnnouncement, stopChild } from './sandbox-process.js';

/** One `cardsync sync` child process, timed. */
export interface TimedSync {
  /** Wall time from spawn to exit, in seconds (node start-up included). */
  readonly seconds: number;
  readonly exitCode: number | null;
  readonly result: SyncResult;
  /** Peak resident set of the sync process (VmHWM), in KiB. */
  readonly peakRssKiB: number;
  /** CPU seconds (user + system) the sync process used: near `seconds` means CPU-bound. */
  readonly cpuSeconds: number;
  /** Transactions plus cards fetched, re-reads included, as the result counts them. */
  readonly rowsFetched: number;
}

/** Options of {@link runTimedSync}. */
export interface TimedSyncOptions {
  readonly cliMain: string;
  readonly sandbox: SandboxAnnouncement;
  /** The mirror file (CARDSYNC_DB). */
  readonly db: string;
  readonly concurrency: number;
  /** Write a V8 CPU profile of the sync child here (`node --cpu-prof`). */
  readonly cpuProfileDir?: string | undefined;
  /** Told how to stop the child early (SIGTERM, then SIGKILL): for the caller's cleanup. */
  readonly onSpawn?: (stop: () => Promise<void>) => void;
}

/**
 * Run `cardsync sync --json` against the sandbox as a separate process, configured the way a
 * deployment would be (the key only in the environment, never on the command line), and time
 * it while sampling its peak RSS.
 * @throws Error when the child prints no JSON result.
 */
export async function runTimedSync(options: TimedSyncOptions): Promise<TimedSync> {
  const merchant = options.sandbox.merchants[0];
  if (!merchant) throw new Error('the sandbox has no merchant');
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!name.startsWith('CARDSYNC_')) env[name] = value;
  Object.assign(env, {
    CARDSYNC_BASE_URL: options.sandbox.baseUrl,
    CARDSYNC_API_KEY: merchant.apiKey,
    CARDSYNC_CA_FILE: options.sandbox.caFile,
    CARDSYNC_DB: options.db,
  });
  const nodeArgs = options.cpuProfileDir
    ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDir]
    : [];
  const args = [
    ...nodeArgs,
    options.cliMain,
    'sync',
    '--json',
    '--concurrency',
    String(options.concurrency),
  ];
  const cpuBefore = reapedChildrenCpuSeconds();
  const started = performance.now();
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  options.onSpawn?.(() => stopChild(child, 10_000));
  const sampler = samplePeakRss(child.pid as number);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => {
    stdout += text;
  });
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr = (stderr + text).slice(-8_000);
  });
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      sampler.sample();
      resolve(code);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  const peakRssKiB = sampler.stop();
  const cpuSeconds = reapedChildrenCpuSeconds() - cpuBefore;
  const line = stdout.trim().split('\n').at(-1) ?? '';
  let result: SyncResult;
  try {
    result = JSON.parse(line) as SyncResult;
  } catch (error) {
    throw new Error(`sync exited ${exitCode} without a JSON result:\n${stderr}`, { cause: error });
  }
  const counts = result.merchants[0];
  const rowsFetched = (counts?.transactions.fetched ?? 0) + (counts?.cards.fetched ?? 0);
  return { seconds, exitCode, result, peakRssKiB, cpuSeconds, rowsFetched };
}
