import type { Stats } from 'node:fs';

/**
 * What a path that is not a regular file is, for a message: `FIFO`, `folder`, `character
 * device`, `block device`, `socket` or `special file`; undefined for a regular file.
 * @example fileKind(statSync('/dev/null')) // 'character device'
 */
export function fileKind(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return 'folder';
  if (stats.isFIFO()) return 'FIFO';
  if (stats.isCharacterDevice()) return 'character device';
  if (stats.isBlockDevice()) return 'block device';
  if (stats.isSocket()) return 'socket';
  return 'special file';
}
