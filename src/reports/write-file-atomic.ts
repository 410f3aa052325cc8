import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { syncDirectory, writeDurably } from './durable-fs.js';

/** How old a temporary file of {@link writeFileAtomic} must be to be taken for a crash's. */
const STALE_TEMP_MS = 3_600_000;

/**
 * Replace the file at `path` with `text` atomically: written and flushed under a hidden
 * temporary name in the same folder (`.name.tmp-…`, which a node_exporter textfile collector
 * ignores, as it reads `*.prom` only), then renamed over `path`. A reader sees the old file or
 * the new one, never a part. Temporary files of `path` an hour old, left by a process killed
 * between writing and renaming, are removed first, so kills do not pile them up.
 * @example writeFileAtomic('/var/lib/node_exporter/textfile/cardsync.prom', text)
 */
export function writeFileAtomic(path: string, text: string): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true });
  const prefix = `.${basename(path)}.tmp-`;
  sweepStaleTemps(dir, prefix);
  const temp = join(dir, `${prefix}${randomBytes(4).toString('hex')}`);
  try {
    writeDurably(temp, text);
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDirectory(dir);
}

function sweepStaleTemps(dir: string, prefix: string): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const temp = join(dir, name);
    try {
      const entry = lstatSync(temp);
      if (entry.isFile() && now - entry.mtimeMs > STALE_TEMP_MS) rmSync(temp, { force: true });
    } catch {
      // Gone already, or not ours to remove: it does no harm.
    }
  }
}
