import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { CLI, runCliProcess } from '../support/cli-process.js';
import { messageLines } from './job-fixture.js';

const isRoot = process.getuid?.() === 0;

describe('a --metrics-file that is no place for the metrics', () => {
  let dir: string;
  let env: Record<string, string>;
  /** A reports folder whose `latest` is a plain file: the reconciliation then ends 1, not 0. */
  let failingReports: string;

  /** `cardsync reconcile` with `metricsFile`, killed if it has not ended after 15 s. */
  const reconcile = (metricsFile: string, reportsDir = join(dir, 'reports')) =>
    runCliProcess(['reconcile', '--metrics-file', metricsFile, '--reports-dir', reportsDir], env, {
      timeoutMs: 15_000,
    });

  /** Exit 2 with one line naming the flag, and nothing written: no report, no metrics. */
  const expectRefused = (
    result: Awaited<ReturnType<typeof reconcile>>,
    message: RegExp,
    reportsDir: string,
  ) => {
    expect(result.code, `${result.stderr} (null: killed after hanging)`).toBe(2);
    expect(messageLines(result.stderr)).toEqual([expect.stringMatching(message)]);
    expect(readdirSync(reportsDir).filter((n) => n !== 'latest')).toEqual([]);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-metrics-path-'));
    const db = join(dir, 'mirror.sqlite');
    await openMirror(db).close();
    env = { CARDSYNC_DB: db, CARDSYNC_METRICS_FILE: '', CARDSYNC_REPORTS_DIR: '' };
    failingReports = join(dir, 'failing-reports');
    mkdirSync(failingReports);
    writeFileSync(join(failingReports, 'latest'), 'not a link\n');
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses a FIFO with exit 2 instead of hanging on reading it after a failed run', async () => {
    const fifo = join(dir, 'metrics.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await reconcile(fifo, failingReports);
    expectRefused(
      result,
      /^cardsync: --metrics-file: expected a regular file or none yet, .*metrics\.fifo is a FIFO$/,
      failingReports,
    );
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  }, 30_000);

  it('refuses a folder with exit 2 instead of a run that cannot write its metrics', async () => {
    const folder = join(dir, 'a-folder.prom');
    mkdirSync(folder);
    const reports = join(dir, 'reports-folder');
    mkdirSync(reports);
    expectRefused(
      await reconcile(folder, reports),
      /^cardsync: --metrics-file: expected a regular file or none yet, .*a-folder\.prom is a folder$/,
      reports,
    );
  }, 30_000);

  it.skipIf(!isRoot)(
    'refuses a device node with exit 2 instead of renaming the metrics over it',
    async () => {
      const device = join(dir, 'null');
      execFileSync('mknod', ['-m', '666', device, 'c', '1', '3']);
      const reports = join(dir, 'reports-device');
      mkdirSync(reports);
      expectRefused(
        await reconcile(device, reports),
        /^cardsync: --metrics-file: expected a regular file or none yet, .*null is a character device$/,
        reports,
      );
      expect(lstatSync(device).isCharacterDevice()).toBe(true);
    },
    30_000,
  );

  it('refuses a file under /proc with exit 2 naming the flag, fast, even for root', async () => {
    const reports = join(dir, 'reports-proc');
    mkdirSync(reports);
    for (const file of ['/proc/self/foo', '/proc/1/metrics', '/proc/cardsync-test.prom']) {
      const started = Date.now();
      expectRefused(
        await reconcile(file, reports),
        /^cardsync: --metrics-file: expected a folder this user can write, cannot write \/proc/,
        reports,
      );
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(existsSync(file)).toBe(false);
    }
  }, 60_000);

  it('has the writer refuse a FIFO too, for a schedule whose file changed after start-up', () => {
    const fifo = join(dir, 'later.fifo');
    execFileSync('mkfifo', [fifo]);
    // In a child, killed after 10 s: a read of the FIFO would block the test's own thread.
    const writer = new URL('../runner/metrics-file.js', pathToFileURL(CLI)).href;
    const script = `
      const { writeMetricsFile } = await import(${JSON.stringify(writer)});
      try {
        writeMetricsFile(${JSON.stringify(fifo)}, { command: 'run', startedAt: 0, finishedAt: 1000, exitCode: 4, outcome: 'sync_incomplete', success: false });
        console.log('written');
      } catch (error) {
        console.log(error.code);
      }`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(child.signal, 'killed after hanging').toBeNull();
    expect(child.stdout.trim()).toBe('METRICS_FILE_NOT_REGULAR');
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  }, 30_000);
});
