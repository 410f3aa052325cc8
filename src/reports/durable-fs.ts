import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/** Write `text` to a new file and flush it to the disk before returning. */
export function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o644);
  try {
    writeSync(fd, text, null, 'utf8');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Flush a directory's entries (a file created or renamed in it) to the disk. Best effort: some
 * file systems refuse to fsync a directory, and the data itself was flushed already.
 */
export function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // EISDIR, EINVAL or EPERM on file systems without directory fsync: nothing more to do.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
