/**
 * A configuration value that cannot be used. The message is one line, `KEY: what was expected`,
 * and never holds a secret; the CLI turns it into exit code 2 (nothing was changed).
 *
 * @example
 * throw new ConfigError('CARDSYNC_BASE_URL', 'expected an https:// URL, got "http://x"');
 * // message: CARDSYNC_BASE_URL: expected an https:// URL, got "http://x"
 */
export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID';
  /** Where the value came from: `CARDSYNC_BASE_URL`, `--concurrency`, `merchants[1].apiKeyFile`. */
  readonly key: string;

  constructor(key: string, expectation: string, options?: { cause?: unknown }) {
    // One line whatever went in: a log line or a terminal message must not be split.
    super(`${key}: ${expectation}`.replace(/\s*[\r\n]+\s*/g, ' '), options);
    this.name = 'ConfigError';
    this.key = key;
  }
}
