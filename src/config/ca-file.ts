import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigError } from './config-error.js';

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/**
 * The PEM text of the CA file at `path` (absolute), checked to hold a certificate that parses:
 * a key, a DER file or a damaged copy given by mistake fails here, naming `key`, not as a TLS
 * error in the middle of a sync nor as the client's `ca` option.
 *
 * @example
 * const ca = await readCaFile('CARDSYNC_CA_FILE', '/etc/cardsync/ca.pem');
 * @throws ConfigError naming `key` and the file when it cannot be read or holds no certificate.
 */
export async function readCaFile(key: string, path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code ?? 'unknown error';
    throw new ConfigError(key, `expected a readable PEM file, cannot read ${path} (${code})`, {
      cause,
    });
  }
  if (!text.includes(PEM_CERTIFICATE)) {
    throw new ConfigError(
      key,
      `expected a PEM certificate (${PEM_CERTIFICATE}) in ${path}, found none`,
    );
  }
  try {
    new X509Certificate(text);
  } catch {
    throw new ConfigError(
      key,
      `expected a PEM certificate in ${path}, cannot parse the one it holds`,
    );
  }
  return text;
}
