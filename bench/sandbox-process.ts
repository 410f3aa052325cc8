import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/** What `cardsync sandbox` prints on its one line of stdout (the fields a bench uses). */
export interface SandboxAnnouncement {
  readonly baseUrl: string;
  readonly caFile: string;
  readonly merchants: readonly {
    merchantId: string;
    apiKey: string;
    currency: string;
    journalFile?: string;
  }[];
  readonly controlToken: string | null;
  readonly stateDir: string | null;
}

/** A sandbox running as a child process. */
export interface SandboxProcess extends SandboxAnnouncement {
  readonly pid: number;
  /** Seconds from spawn to the announcement (world generation included). */
  readonly startSeconds: number;
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** Options of {@link startSandboxProcess}. */
export interface SandboxProcessOptions {
  /** `dist/cli/main.js` of the built CLI. */
  readonly cliMain: string;
  readonly stateDir: string;
  readonly cards: number;
  readonly transactions: number;
  readonly days: number;
  /** Inline fault rules (`--fault`), as objects. */
  readonly faults?: readonly object[];
  /** Called with each stderr line (the sandbox logs at warn). */
  readonly onStderr?: (line: string) => void;
  /** Told how to stop the child as soon as it is spawned (before it announces itself). */
  readonly onSpawn?: (stop: () => Promise<void>) => void;
}

/**
 * Start `cardsync sandbox` with a generated world in a state directory and wait for its JSON
 * line. The child runs in its own process so it has a core of its own beside the client.
 */
export async function startSandboxProcess(options: SandboxProcessOptions): Promise<SandboxProcess> {
  const args = [
    options.cliMain,
    'sandbox',
    '--state-dir',
    options.stateDir,
    '--merchants',
    '1',
    '--cards',
    String(options.cards),
    '--transactions',
    String(options.transactions),
    '--days',
    String(options.days),
    '--control',
    '--processing-delay',
    'manual',
    '--log-level',
    'warn',
    ...(options.faults ?? []).flatMap((rule) => ['--fault', JSON.stringify(rule)]),
  ];
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const stderrTail: string[] = [];
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
    stderrTail.push(line);
    if (stderrTail.length > 20) stderrTail.shift();
    options.onStderr?.(line);
  });
  const stop = (graceMs = 15_000) => stopChild(child, graceMs);
  options.onSpawn?.(() => stop());
  try {
    const line = await firstLine(child);
    const announced = JSON.parse(line) as SandboxAnnouncement;
    return {
      ...announced,
      pid: child.pid as number,
      startSeconds: (performance.now() - started) / 1000,
      stop,
    };
  } catch (error) {
    await stop(2_000);
    throw new Error(
      `sandbox did not start: ${(error as Error).message}\n${stderrTail.join('\n')}`,
      {
        cause: error,
      },
    );
  }
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`exited (code ${code}, signal ${signal}) before announcing itself`));
    child.once('exit', onExit);
    child.once('error', reject);
    lines.once('line', (line) => {
      child.off('exit', onExit);
      resolve(line);
    });
  });
}

/** End a child we started: SIGTERM, then SIGKILL after `graceMs`; resolves once it has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}
