import type { Logger } from 'pino';
import { createLogger } from '../log/logger.js';
import type { CliIo } from './cli-io.js';

/**
 * The JSON logger of a command that talks to the upstream or the mirror, at `level` when
 * `--log-level` gave one; else `warn` on a terminal, where a person reads the summary and the
 * progress line, and `info` otherwise, where a log shipper reads every line.
 * @example const logger = commandLogger(io, flags.logLevel);
 */
export function commandLogger(io: CliIo, level?: string): Logger {
  return createLogger({ level: level ?? (io.stderrIsTTY ? 'warn' : 'info') });
}
