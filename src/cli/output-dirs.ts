import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JobConfig } from '../config/index.js';
import { UsageError } from './exit-codes.js';

/**
 * Check that the reports folder and the metrics file's folder can be written, before anything
 * else happens: a wrong path is a configuration error (exit 2), found before a sync changes the
 * mirror, not after. Nothing is created here: a folder that does not exist yet only needs the
 * nearest existing folder above it to be writable, and the report and metrics writers create it
 * when they first write, once every other input has checked out.
 */
export function checkOutputDirs(config: JobConfig): void {
  writable(config.origins.reportsDir, config.reportsDir);
  if (config.metricsFile !== undefined)
    writable(config.origins.metricsFile ?? 'CARDSYNC_METRICS_FILE', dirname(config.metricsFile));
}

function writable(key: string, dir: string): void {
  const problem = writeProblem(dir);
  if (problem !== undefined)
    throw new UsageError(
      `${key}: expected a folder this user can write, cannot write ${dir} (${problem})`,
    );
}

/**
 * Why `dir` could not be written or created (an errno code such as `ENOTDIR` or `EACCES`), or
 * undefined when it could; nothing is created.
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
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? 'error';
  }
}
