import { randomBytes } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { makeFolders } from '../make-folders.js';
import { syncDirectory, writeDurably } from './durable-fs.js';
import { sweepStaleTemps } from './stale-temps.js';

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
  makeFolders(dir);
  const prefix = `.${basename(path)}.tmp-`;
  sweepStaleTemps(dir, prefix, 'files');
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
