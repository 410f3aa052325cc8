import { ConfigError } from './config-error.js';
import { readSettingFileAndMode } from './read-setting-file.js';
import { SettingFileError } from './setting-file-error.js';

/** A key file larger than this is not a key file (a mirror or a log named by mistake). */
const MAX_KEY_FILE_BYTES = 65_536;

/**
 * A key as read: surrounding whitespace (the trailing newline of a file, above all) is dropped,
 * and what is left must be one non-empty run of printable ASCII without spaces, fit for an
 * `x-api-key` header: a character a header cannot carry (a curly quote pasted along with the
 * key) would otherwise fail every request as if the upstream were unavailable. Messages say
 * where the key was looked for, never what it holds (a stray character is named by its code
 * point only).
 */
function checkedKey(key: string, text: string, where: string): string {
  const trimmed = text.trim();
  if (trimmed === '') throw new ConfigError(key, `expected a key in ${where}, found it empty`);
  if (/[\s\p{Cc}]/u.test(trimmed)) {
    throw new ConfigError(key, `expected one key without spaces or line breaks in ${where}`);
  }
  const stray = /[^\x21-\x7e]/u.exec(trimmed)?.[0];
  if (stray !== undefined) {
    const codePoint = (stray.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
    throw new ConfigError(
      key,
      `expected one key of printable ASCII characters in ${where}, found U+${codePoint}`,
    );
  }
  return trimmed;
}

/** A key file as read: the key, and whether any user of the host may read it too. */
export interface KeyFile {
  readonly apiKey: string;
  /** True when the file's mode lets every user read it (`o+r`, as 0644 does). */
  readonly worldReadable: boolean;
}

/**
 * The key held by the file at `path` (absolute).
 *
 * A file every user may read is still read (the job's user may have no say over it), and
 * `worldReadable` says so for a warning. A group may read it: a key owned by root and readable by
 * the service's group (0640) is the usual way to hand one to a service account.
 *
 * Only a regular file is read (see {@link readSettingFile}): a FIFO or a device is refused.
 * Messages name `key` and the reason, never `path`: a key pasted by mistake where its file's
 * path belongs would otherwise be printed. The cause is dropped for the same reason, since
 * Node's error repeats the path.
 *
 * @example
 * const { apiKey } = await readKeyFile('CARDSYNC_API_KEY_FILE', '/etc/cardsync/eu.key');
 * @throws ConfigError naming `key` when the file cannot be read or holds no key.
 */
export async function readKeyFile(key: string, path: string): Promise<KeyFile> {
  let text: string;
  let mode: number;
  try {
    ({ text, mode } = await readSettingFileAndMode(path, MAX_KEY_FILE_BYTES));
  } catch (error) {
    if (!(error instanceof SettingFileError)) throw error;
    throw new ConfigError(
      key,
      `expected a readable key file, ${error.reason('the file it names')}`,
    );
  }
  return {
    apiKey: checkedKey(key, text, 'the key file it names'),
    worldReadable: (mode & 0o004) !== 0,
  };
}

/**
 * The key held by environment variable `name`.
 *
 * A name the configuration gave (`merchants[i].apiKeyEnv`) is not repeated in messages, as a
 * key file's path is not: a key pasted where the name belongs (`sk_live_…` is a valid variable
 * name) would otherwise be printed.
 *
 * @example
 * const apiKey = keyFromEnv('merchants[1].apiKeyEnv', env, 'CARDSYNC_US_KEY');
 * @throws ConfigError naming `key` when the variable is unset, empty or not one key.
 */
export function keyFromEnv(
  key: string,
  env: Readonly<Record<string, string | undefined>>,
  name: string,
): string {
  const where = key === name ? `environment variable ${name}` : 'the environment variable it names';
  const text = env[name];
  if (text === undefined || text === '') {
    throw new ConfigError(key, `expected ${where} to hold the key, it is unset`);
  }
  return checkedKey(key, text, where);
}
