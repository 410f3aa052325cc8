import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import type { SandboxOptions } from '../../src/sandbox/sandbox.js';
import { sandboxCliEnv } from '../support/cli-process.js';
import { startTestSandbox, type TestSandbox } from '../support/test-sandbox.js';

/** A sandbox with a world, a temp folder, and the environment a `cardsync` process needs. */
export interface JobFixture {
  readonly t: TestSandbox;
  readonly dir: string;
  readonly db: string;
  readonly reportsDir: string;
  readonly metricsFile: string;
  /** CARDSYNC_* for the first merchant, mirror, reports and metrics in `dir`. */
  readonly env: Record<string, string>;
  readonly merchantId: string;
  readonly journalFile: string;
  /** The ground-truth manifest's findings. */
  planted(): { check: string; cardId?: string; transactionId?: string; orderNo?: string }[];
  close(): Promise<void>;
}

/** Start a one-merchant sandbox with `options` and a temp folder for the job's files. */
export async function startJobFixture(options: Partial<SandboxOptions>): Promise<JobFixture> {
  const t = await startTestSandbox({ merchants: 1, ...options });
  const dir = await mkdtemp(join(tmpdir(), 'cardsync-job-'));
  const merchant = t.sandbox.merchants[0]!;
  const db = join(dir, 'data', 'mirror.sqlite');
  const reportsDir = join(dir, 'reports');
  const metricsFile = join(dir, 'textfile', 'cardsync.prom');
  return {
    t,
    dir,
    db,
    reportsDir,
    metricsFile,
    merchantId: merchant.merchantId,
    journalFile: merchant.journalFile ?? '',
    env: {
      ...sandboxCliEnv(t, db),
      CARDSYNC_REPORTS_DIR: reportsDir,
      CARDSYNC_METRICS_FILE: metricsFile,
    },
    planted: () =>
      t.sandbox.groundTruthFile
        ? (JSON.parse(readFileSync(t.sandbox.groundTruthFile, 'utf8')).findings as [])
        : [],
    close: async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A CSV report file as rows by column name. */
export function readCsv(file: string): Record<string, string>[] {
  return parse(readFileSync(file), { columns: true }) as Record<string, string>[];
}

/** The pino JSON lines of `stderr`, parsed, as `T` (the fields a test reads). */
export function logLines<T>(stderr: string): T[] {
  return stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as T);
}

/** The stderr lines that are not commander's usage hint. */
export function messageLines(stderr: string): string[] {
  return stderr
    .trim()
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('(run with') && !l.startsWith('{'));
}
