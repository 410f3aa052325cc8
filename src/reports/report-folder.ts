import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { makeFolders } from '../make-folders.js';
import { runStampAt, runStampOf } from '../run-id.js';
import { syncDirectory, writeDurably } from './durable-fs.js';
import { ReportError } from './report-error.js';
import { sweepStaleTemps } from './stale-temps.js';

/** The name of the link to the newest report folder. */
export const LATEST_LINK = 'latest';

/** Temporary entries start with this: hidden, and never taken for a report. */
const TEMP_PREFIX = '.tmp-';

/** A report folder written in full under a temporary name, waiting to be published. */
export interface StagedReport {
  /** Where the folder will be: `<reports dir>/<run id>`. */
  readonly dir: string;
  /** Rename it into place: atomic, so readers see the whole folder or none. */
  publish(): void;
  /** Remove the temporary folder, unless published. */
  discard(): void;
}

/**
 * Write `files` into a temporary folder beside `<reports dir>/<run id>`, each file flushed to
 * the disk, so that {@link StagedReport.publish} can put the complete folder in place with one
 * rename. A crash leaves only a hidden `.tmp-…` folder, swept by a later run.
 * @example
 * const staged = stageReportFolder('/var/lib/cardsync/reports', runId, files);
 * staged.publish();
 * pointLatest('/var/lib/cardsync/reports', runId);
 * @throws ReportError REPORT_RUN_ID_INVALID, REPORT_EXISTS or REPORT_WRITE_FAILED.
 */
export function stageReportFolder(
  reportsDir: string,
  runId: string,
  files: ReadonlyMap<string, string>,
): StagedReport {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(runId) || runId === LATEST_LINK)
    throw new ReportError('REPORT_RUN_ID_INVALID', `${JSON.stringify(runId)} cannot name a folder`);
  const dir = join(reportsDir, runId);
  const temp = join(reportsDir, `${TEMP_PREFIX}${runId}-${randomBytes(4).toString('hex')}`);
  let published = false;
  const discard = () => {
    if (published) return;
    try {
      rmSync(temp, { recursive: true, force: true });
    } catch {
      // Best effort: the folder may never have been made (its parent is unusable); a later run
      // sweeps what is left.
    }
  };
  try {
    makeFolders(reportsDir);
    sweepStaleTemps(reportsDir, TEMP_PREFIX, 'any');
    if (exists(dir))
      throw new ReportError('REPORT_EXISTS', `the report folder ${dir} exists already`);
    mkdirSync(temp);
    for (const [name, text] of files) writeDurably(join(temp, name), text);
    syncDirectory(temp);
  } catch (error) {
    discard();
    if (error instanceof ReportError) throw error;
    throw new ReportError(
      'REPORT_WRITE_FAILED',
      `cannot write the report folder ${dir}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return {
    dir,
    publish: () => {
      try {
        // rename(2) replaces an empty directory silently: refuse any existing one instead.
        if (exists(dir))
          throw new ReportError('REPORT_EXISTS', `the report folder ${dir} exists already`);
        renameSync(temp, dir);
        published = true;
        syncDirectory(reportsDir);
      } catch (error) {
        discard();
        if (error instanceof ReportError) throw error;
        throw new ReportError(
          'REPORT_WRITE_FAILED',
          `cannot put the report folder ${dir} in place: ${(error as Error).message}`,
          { cause: error },
        );
      }
    },
    discard,
  };
}

/**
 * Point `<reports dir>/latest` at the report folder `runId`: a relative symbolic link made under
 * a temporary name and renamed over `latest`, so the link is replaced atomically and a reader
 * never finds it missing. It only moves forward: when it already names a run started in a later
 * second (a run id begins with its start time), up to `now`, it is left alone and false is
 * returned (two mirrors sharing a reports folder, whose runs overlap). A run stamped after `now`
 * was started by a clock that has since gone back; were it kept, `latest` would name it until
 * the clock caught up (a clock a year ahead: a year of stale reports), so it is replaced. Two
 * runs of the same second (which the mirror lock serialises) publish in order: the newer wins.
 * @throws ReportError REPORT_LATEST_NOT_UPDATED, e.g. when `latest` is not a symbolic link.
 */
export function pointLatest(reportsDir: string, runId: string, now = Date.now()): boolean {
  const latest = join(reportsDir, LATEST_LINK);
  const current = latestTarget(reportsDir);
  if (current !== null) {
    const stamp = runStampOf(basename(current));
    if (stamp > runStampOf(runId) && stamp <= runStampAt(now)) return false;
  }
  const temp = join(reportsDir, `${TEMP_PREFIX}${LATEST_LINK}-${randomBytes(4).toString('hex')}`);
  try {
    symlinkSync(runId, temp);
    renameSync(temp, latest);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Swept by a later run.
    }
    throw new ReportError(
      'REPORT_LATEST_NOT_UPDATED',
      `cannot point ${latest} at ${runId}: ${(error as Error).message}`,
      { cause: error },
    );
  }
  syncDirectory(reportsDir);
  return true;
}

/**
 * Where `<reports dir>/latest` points, or null when there is none yet. Call it before recording
 * a reconciliation too: a `latest` that cannot be moved is found while nothing is recorded, so
 * the findings the report would have shown `new` are still `new` in the next one.
 * @throws ReportError REPORT_LATEST_NOT_UPDATED when `latest` is not a symbolic link, or cannot
 *   be read.
 */
export function latestTarget(reportsDir: string): string | null {
  const latest = join(reportsDir, LATEST_LINK);
  try {
    return readlinkSync(latest);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // None there, or no reports folder to hold one (writing the folder names that problem).
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new ReportError(
      'REPORT_LATEST_NOT_UPDATED',
      code === 'EINVAL'
        ? `${latest} is not a symbolic link this job made (${code}); move it away`
        : `cannot read ${latest}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
