import { X509Certificate } from 'node:crypto';
import { ConfigError } from './config-error.js';
import { readSettingFile } from './read-setting-file.js';
import { SettingFileError } from './setting-file-error.js';

/** Room for a whole CA bundle (the system's is a few hundred KiB). */
const MAX_CA_FILE_BYTES = 16 * 1024 * 1024;

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/**
 * The PEM text of the CA file at `path` (absolute; a regular file, see {@link readSettingFile}), checked to hold a certificate that parses:
 * a key, a DER file or a damaged copy given by mistake fails here, naming `key`, not as a TLS
 * error in the middle of a sync nor as the client's `ca` option.
 *
 * Messages name the file, for the operator to find it, but never `apiKey`: a key pasted by
 * mistake where the CA file's path belongs shows as `(the key)`, and the cause, whose message
 * repeats the path, is then dropped.
 *
 * @example
 * const ca = await readCaFile('CARDSYNC_CA_FILE', '/etc/cardsync/ca.pem', apiKey);
 * @throws ConfigError naming `key` and the file when it cannot be read or holds no certificate.
 */
export async function readCaFile(key: string, path: string, apiKey: string): Promise<string> {
  const holdsKey = apiKey !== '' && path.includes(apiKey);
  const shown = holdsKey ? path.replaceAll(apiKey, '(the key)') : path;
  let text: string;
  try {
    text = await readSettingFile(path, MAX_CA_FILE_BYTES);
  } catch (cause) {
    if (!(cause instanceof SettingFileError)) throw cause;
    throw new ConfigError(
      key,
      `expected a readable PEM file, ${cause.reason(shown)}`,
      holdsKey ? {} : { cause },
    );
  }
  if (!text.includes(PEM_CERTIFICATE)) {
    throw new ConfigError(
      key,
      `expected a PEM certificate (${PEM_CERTIFICATE}) in ${shown}, found none`,
    );
  }
  try {
    new X509Certificate(text);
  } catch {
    throw new ConfigError(
      key,
      `expected a PEM certificate in ${shown}, cannot parse the one it holds`,
    );
  }
  return text;
}
