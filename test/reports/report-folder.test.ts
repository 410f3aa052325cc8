import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  utimesSync,
} from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pointLatest, stageReportFolder } from '../../src/reports/report-folder.js';
import { writeFileAtomic } from '../../src/reports/write-file-atomic.js';
import { finished } from '../support/cli-process.js';

/** The built report writers, for a child process that cannot run the TypeScript sources. */
const BUILT = new URL('../../dist/reports/', import.meta.url).href;

/**
 * Run `script` (an ES module with `reportFolder` and `fileAtomic`, the built writers, in scope)
 * in a node whose files are limited to `kib` KiB (RLIMIT_FSIZE, `ulimit -f`, 512-byte blocks in a
 * POSIX sh): a write across the limit writes what fits and returns that count without an error,
 * as a write to a disk that fills up does; node ignores SIGXFSZ. Its stdout is parsed as JSON.
 */
async function runLimited(kib: number, script: string): Promise<unknown> {
  const module = `const reportFolder = await import(${JSON.stringify(`${BUILT}report-folder.js`)});
    const fileAtomic = await import(${JSON.stringify(`${BUILT}write-file-atomic.js`)});
    ${script}`;
  const child = spawn(
    'sh',
    [
      '-c',
      `ulimit -f ${kib * 2} && exec "$0" --input-type=module -e "$1"`,
      process.execPath,
      module,
    ],
    { stdio: 'pipe' },
  );
  const result = await finished(child);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** A report file larger than the 16 KiB the limited writers may write. */
const LARGE = 'x'.repeat(64 * 1024);

const FILES = new Map([
  ['discrepancies.csv', 'check\r\n'],
  ['summary.csv', 'section\r\n'],
]);

describe('report folders', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-reports-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const visible = () => readdirSync(dir).filter((name) => !name.startsWith('.'));

  it('appears whole on publish: nothing under the run id before, every file after', () => {
    const staged = stageReportFolder(dir, 'r2', FILES);
    expect(visible()).toEqual([]);
    expect(readdirSync(dir)).toHaveLength(1);
    staged.publish();
    expect(visible()).toEqual(['r2']);
    expect(readdirSync(join(dir, 'r2')).sort()).toEqual(['discrepancies.csv', 'summary.csv']);
    expect(readFileSync(join(dir, 'r2', 'summary.csv'), 'utf8')).toBe('section\r\n');
    expect(readdirSync(dir)).toEqual(['r2']);
  });

  it('leaves nothing when discarded', () => {
    stageReportFolder(dir, 'r2', FILES).discard();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves nothing and names the folder when a file cannot be written', () => {
    const bad = new Map([...FILES, ['no/such/dir.csv', 'x']]);
    expect(() => stageReportFolder(dir, 'r2', bad)).toThrow(
      expect.objectContaining({ code: 'REPORT_WRITE_FAILED' }),
    );
    expect(readdirSync(dir)).toEqual([]);
  });

  it('fails, and leaves nothing, when a file reaches the disk only in part (a disk that fills up)', async () => {
    const outcome = await runLimited(
      16,
      `try {
        reportFolder.stageReportFolder(${JSON.stringify(dir)}, 'r2', new Map([['discrepancies.csv', ${JSON.stringify(LARGE)}]])).publish();
        console.log(JSON.stringify({ code: null }));
      } catch (error) {
        console.log(JSON.stringify({ code: error.code, message: error.message }));
      }`,
    );
    expect(outcome).toEqual({
      code: 'REPORT_WRITE_FAILED',
      message: expect.stringMatching(/^cannot write the report folder .*r2: EFBIG: file too large/),
    });
    expect(readdirSync(dir)).toEqual([]);
  });

  it('refuses to replace an existing report folder', () => {
    mkdirSync(join(dir, 'r2'));
    expect(() => stageReportFolder(dir, 'r2', FILES)).toThrow(
      expect.objectContaining({ code: 'REPORT_EXISTS' }),
    );
    const staged = stageReportFolder(dir, 'r3', FILES);
    mkdirSync(join(dir, 'r3'));
    expect(() => staged.publish()).toThrow(expect.objectContaining({ code: 'REPORT_EXISTS' }));
    expect(readdirSync(dir).sort()).toEqual(['r2', 'r3']);
  });

  it.each(['../escape', 'latest', '', '.hidden', 'a/b'])('refuses the run id %j', (runId) => {
    expect(() => stageReportFolder(dir, runId, FILES)).toThrow(
      expect.objectContaining({ code: 'REPORT_RUN_ID_INVALID' }),
    );
  });

  it('sweeps temporary folders a crashed run left more than an hour ago', () => {
    const old = join(dir, '.tmp-crashed-1234');
    const recent = join(dir, '.tmp-running-5678');
    mkdirSync(old);
    mkdirSync(recent);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    utimesSync(old, twoHoursAgo, twoHoursAgo);
    stageReportFolder(dir, 'r1', FILES).publish();
    expect(existsSync(old)).toBe(false);
    expect(existsSync(recent)).toBe(true);
  });

  it('points latest at the newest folder with a relative link, replaced by rename', () => {
    stageReportFolder(dir, '20261120T020000Z-aaaaaa', FILES).publish();
    expect(pointLatest(dir, '20261120T020000Z-aaaaaa')).toBe(true);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261120T020000Z-aaaaaa');
    stageReportFolder(dir, '20261121T020000Z-bbbbbb', FILES).publish();
    expect(pointLatest(dir, '20261121T020000Z-bbbbbb')).toBe(true);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261121T020000Z-bbbbbb');
    expect(readFileSync(join(dir, 'latest', 'summary.csv'), 'utf8')).toBe('section\r\n');
    expect(readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('never moves latest back to an older run', () => {
    expect(pointLatest(dir, '20261121T020000Z-bbbbbb')).toBe(true);
    expect(pointLatest(dir, '20261120T020000Z-aaaaaa')).toBe(false);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261121T020000Z-bbbbbb');
  });

  it('keeps latest on a run started after this one but before now (runs that overlap)', () => {
    const now = Date.parse('2026-11-21T02:30:00Z');
    expect(pointLatest(dir, '20261121T021500Z-bbbbbb', now)).toBe(true);
    expect(pointLatest(dir, '20261121T020000Z-aaaaaa', now)).toBe(false);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261121T021500Z-bbbbbb');
  });

  it('moves latest off a run stamped after now, when the clock has gone back since', () => {
    // A run while the host clock was a year ahead, then the clock set right.
    expect(pointLatest(dir, '20271121T020000Z-bbbbbb', Date.parse('2027-11-21T02:05:00Z'))).toBe(
      true,
    );
    const now = Date.parse('2026-11-22T02:05:00Z');
    expect(pointLatest(dir, '20261122T020000Z-cccccc', now)).toBe(true);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261122T020000Z-cccccc');
    // From there it moves forward only, as before.
    expect(pointLatest(dir, '20261121T020000Z-aaaaaa', now)).toBe(false);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261122T020000Z-cccccc');
  });

  it('moves latest to the newer of two runs started in the same second, whatever their suffixes', () => {
    expect(pointLatest(dir, '20261121T020000Z-ffffff')).toBe(true);
    expect(pointLatest(dir, '20261121T020000Z-000000')).toBe(true);
    expect(readlinkSync(join(dir, 'latest'))).toBe('20261121T020000Z-000000');
  });

  it('refuses to replace a latest that is not a symbolic link', () => {
    mkdirSync(join(dir, 'latest'));
    expect(() => pointLatest(dir, 'r1')).toThrow(
      expect.objectContaining({ code: 'REPORT_LATEST_NOT_UPDATED' }),
    );
  });
});

describe('writeFileAtomic', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'cardsync-atomic-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('replaces the file whole, creating its folder, and leaves no temporary file', () => {
    const file = join(dir, 'textfile', 'cardsync.prom');
    writeFileAtomic(file, 'a 1\n');
    writeFileAtomic(file, 'a 2\n');
    expect(readFileSync(file, 'utf8')).toBe('a 2\n');
    expect(readdirSync(join(dir, 'textfile'))).toEqual(['cardsync.prom']);
  });

  it('keeps the old file, and leaves no temporary one, when the new one reaches the disk only in part', async () => {
    const file = join(dir, 'cardsync.prom');
    writeFileAtomic(file, 'a 1\n');
    const outcome = await runLimited(
      16,
      `try {
        fileAtomic.writeFileAtomic(${JSON.stringify(file)}, ${JSON.stringify(LARGE)});
        console.log(JSON.stringify({ code: null }));
      } catch (error) {
        console.log(JSON.stringify({ code: error.code }));
      }`,
    );
    expect(outcome).toEqual({ code: 'EFBIG' });
    expect(readFileSync(file, 'utf8')).toBe('a 1\n');
    expect(readdirSync(dir)).toEqual(['cardsync.prom']);
  });
});
