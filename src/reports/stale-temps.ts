import { lstatSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** A temporary entry older than this was left by a crashed run: no live run still uses it. */
const STALE_TEMP_MS = 3_600_000;

/**
 * Remove the entries of `dir` whose name starts with `prefix` and that are an hour old: what a
 * run killed between writing and renaming left behind. `kinds` says what such an entry may be:
 * `'files'` for a file written whole, `'any'` for a report's staging folder or link too.
 * @example sweepStaleTemps('/var/lib/cardsync/reports', '.tmp-', 'any')
 */
export function sweepStaleTemps(dir: string, prefix: string, kinds: 'files' | 'any'): void {
  const now = Date.now();
  for (const name of readdirSync(dir)) {
    if (!name.startsWith(prefix)) continue;
    const path = join(dir, name);
    try {
      const entry = lstatSync(path);
      if ((kinds === 'any' || entry.isFile()) && now - entry.mtimeMs > STALE_TEMP_MS)
        rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already, or not ours to remove: it does no harm.
    }
  }
}
