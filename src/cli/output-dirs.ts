import { randomBytes } from 'node:crypto';
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  openSync,
  statSync,
  unlinkSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { fileKind } from '../config/file-kind.js';
import type { JobConfig } from '../config/index.js';
import { UsageError } from './exit-codes.js';

/**
 * Check that the reports folder and the metrics file's folder can be written, and that the
 * metrics file, when it exists, is a regular file, before anything else happens: a wrong path
 * is a configuration error (exit 2), found before a sync changes the mirror, not after. Nothing
 * is left behind here: a folder that does not exist yet only needs the nearest existing folder
 * above it to be writable, and the report and metrics writers create it when they first write,
 * once every other input has checked out.
 */
export function checkOutputDirs(config: JobConfig): void {
  writable(config.origins.reportsDir, config.reportsDir);
  if (config.metricsFile === undefined) return;
  const key = config.origins.metricsFile ?? 'CARDSYNC_METRICS_FILE';
  // The writer reads the file it replaces (the last success) and renames over it: a FIFO would
  // block that read for ever, a device or folder is no textfile (and root could replace a node
  // such as /dev/null).
  const kind = notRegular(config.metricsFile);
  if (kind !== undefined)
    throw new UsageError(
      `${key}: expected a regular file or none yet, ${config.metricsFile} is a ${kind}`,
    );
  writable(key, dirname(config.metricsFile));
}

function writable(key: string, dir: string): void {
  const problem = writeProblem(dir);
  if (problem !== undefined)
    throw new UsageError(
      `${key}: expected a folder this user can write, cannot write ${dir} (${problem})`,
    );
}

/** What `file` is when it exists and is not a regular file (`FIFO`, `folder`...), else undefined. */
function notRegular(file: string): string | undefined {
  try {
    return fileKind(statSync(file));
  } catch {
    return undefined; // missing, or not reachable: the folder check names the problem
  }
}

/**
 * Why `dir` could not be written or created (an errno code such as `ENOTDIR` or `EACCES`), or
 * undefined when it could. The nearest existing folder gets a hidden file created and removed
 * at once: access(2) alone says yes to root for /proc, /sys and the like, where no file can be
 * created.
 */
export function writeProblem(dir: string): string | undefined {
  // A folder not there yet is created inside the closest one that is (`/` at worst).
  let existing = dir;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  try {
    if (!statSync(existing).isDirectory()) return 'ENOTDIR';
    // Making an entry in a folder takes search permission as well as write: a folder without
    // `x` would pass a write check and refuse the report only after the reconciliation ran.
    accessSync(existing, constants.W_OK | constants.X_OK);
    const probe = join(existing, `.cardsync-probe-${randomBytes(4).toString('hex')}`);
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}
