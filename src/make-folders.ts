import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Create `dir` and the folders above it that are missing, as `mkdir -p` does, one level at a
 * time. Node's `mkdirSync(dir, { recursive: true })` takes an ENOENT for a missing parent and
 * tries again for ever where the parent exists but takes no new entry (under /proc, mkdir
 * answers ENOENT): the process spun at full CPU, deaf to SIGTERM. Here that ENOENT is thrown.
 * @example makeFolders('/var/lib/cardsync/data');
 * @throws the first mkdir's error other than EEXIST (ENOENT, EACCES, ENOTDIR...).
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at) && dirname(at) !== at; at = dirname(at))
    missing.unshift(at);
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process, or a dangling symbolic link (its child then fails).
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}
