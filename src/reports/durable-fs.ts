import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/**
 * Write `text` to a new file and flush it to the disk before returning.
 * @throws the write's error (ENOSPC, EFBIG...) unless every byte was written.
 */
export function writeDurably(path: string, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  const fd = openSync(path, 'wx', 0o644);
  try {
    // write(2) may take only part (a disk that fills up, a file size limit) without an error:
    // the error comes with the next write, so write again until all is taken.
    for (let written = 0; written < bytes.length; )
      written += writeSync(fd, bytes, written, bytes.length - written);
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
