import { accessSync, constants, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { JobConfig } from '../config/index.js';
import { UsageError } from './exit-codes.js';

/**
 * Make sure the reports folder and the metrics file's folder can be written before anything
 * else happens: a wrong path is a configuration error (exit 2), found before a sync changes the
 * mirror, not after.
 */
export function ensureOutputDirs(config: JobConfig): void {
  writable('--reports-dir / CARDSYNC_REPORTS_DIR', config.reportsDir);
  if (config.metricsFile !== undefined)
    writable('--metrics-file / CARDSYNC_METRICS_FILE', dirname(config.metricsFile));
}

function writable(key: string, dir: string): void {
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(
      `${key}: expected a folder this user can write, cannot write ${dir} (${code})`,
    );
  }
}
