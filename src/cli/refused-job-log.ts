import { newRunId } from '../run-id.js';
import type { CliIo } from './cli-io.js';
import { commandLogger } from './command-logger.js';
import { EXIT, type UsageError } from './exit-codes.js';
import { logRunOutcome, type RunOutcome } from './run-outcome-log.js';

/**
 * Log the `run finished` line of a `run`, `sync` or `reconcile` whose command line the parser
 * refused (an unknown flag, a flag without its value), as one refused for a bad setting logs it:
 * a timer unit with a mistyped flag would otherwise fail every night with nothing in the JSON
 * log for a log shipper to see. Loaded only then: a command line that parses never pays for it.
 * @example logRefusedJob(io, 'sync', started, new UsageError("unknown option '--bogus'"))
 */
export function logRefusedJob(
  io: CliIo,
  command: RunOutcome['command'],
  started: number,
  error: UsageError,
): void {
  const logger = commandLogger(io);
  logRunOutcome(logger, {
    command,
    runId: newRunId(started),
    exitCode: EXIT.USAGE,
    durationMs: Date.now() - started,
    error,
  });
  logger.flush();
}
