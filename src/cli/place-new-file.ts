import { constants, copyFileSync, linkSync } from 'node:fs';

/**
 * Give `file`'s content the name `target` as well, never replacing a file of that name: a hard
 * link, or a copy where the file system has none (another device, no link support).
 * @throws Error with code EEXIST when `target` exists; whatever else the copy meets.
 */
export function placeNewFile(file: string, target: string): void {
  try {
    linkSync(file, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw error;
    copyFileSync(file, target, constants.COPYFILE_EXCL);
  }
}
