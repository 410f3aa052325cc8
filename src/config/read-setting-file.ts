import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { fileKind } from './file-kind.js';
import { SettingFileError } from './setting-file-error.js';

/**
 * The UTF-8 text of the regular file at `path` (absolute; a symbolic link is followed), of at
 * most `maxBytes`. It is opened without blocking and checked before a byte is read: a FIFO would
 * otherwise hold the start-up until some writer came, past any SIGTERM (the read blocks a
 * thread the signal handler cannot stop), and a device such as /dev/zero would be read until
 * memory ran out. A folder fails as `EISDIR`, as a plain read would.
 *
 * @example
 * const text = await readSettingFile('/etc/cardsync/eu.key', 65_536);
 * @throws SettingFileError with the errno, or the problem of a file that is no regular file or is too large.
 */
export async function readSettingFile(path: string, maxBytes: number): Promise<string> {
  return (await readSettingFileAndMode(path, maxBytes)).text;
}

/**
 * {@link readSettingFile}, with the file's permission bits (`0o640`) as they were when it was read.
 *
 * @example
 * const { text, mode } = await readSettingFileAndMode('/etc/cardsync/eu.key', 65_536);
 * @throws SettingFileError as {@link readSettingFile} does.
 */
export async function readSettingFileAndMode(
  path: string,
  maxBytes: number,
): Promise<{ text: string; mode: number }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new SettingFileError((error as NodeJS.ErrnoException).code ?? 'unknown error', undefined);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new SettingFileError('EISDIR', undefined);
    const kind = fileKind(stats);
    if (kind !== undefined) throw new SettingFileError(undefined, `a ${kind}, not a regular file`);
    if (stats.size > maxBytes)
      throw new SettingFileError(undefined, `larger than ${maxBytes} bytes`);
    return { text: await handle.readFile('utf8'), mode: stats.mode & 0o777 };
  } catch (error) {
    if (error instanceof SettingFileError) throw error;
    throw new SettingFileError((error as NodeJS.ErrnoException).code ?? 'unknown error', undefined);
  } finally {
    await handle.close();
  }
}
