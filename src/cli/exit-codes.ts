import { firstCode } from '../error-causes.js';

/** The exit codes operators and schedulers rely on (job-interface.md; 7 is this project's own). */
export const EXIT = {
  OK: 0,
  INTERNAL: 1,
  USAGE: 2,
  UNAUTHORIZED: 3,
  SYNC_INCOMPLETE: 4,
  LOCKED: 5,
  DISCREPANCIES: 6,
  /** The upstream refused a request (a 4xx other than 401); an order so refused is journaled. */
  REJECTED: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends the command with a given exit code and a one-line message. */
export class ExitError extends Error {
  readonly exitCode: ExitCode;

  constructor(exitCode: ExitCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExitError';
    this.exitCode = exitCode;
  }
}

/**
 * A bad flag, argument or configuration value: exit 2, nothing changed. Its `code` is the one
 * given, else that of the first cause that has one (`CONFIG_INVALID`), else `USAGE_INVALID`, so
 * that `--json`'s `error.code` and the `run finished` line always name one.
 * @example new UsageError('--dir: expected a path, got ""').code // 'USAGE_INVALID'
 */
export class UsageError extends ExitError {
  readonly code: string;

  constructor(message: string, options?: { cause?: unknown; code?: string }) {
    super(EXIT.USAGE, message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UsageError';
    this.code = options?.code ?? firstCode(options?.cause) ?? 'USAGE_INVALID';
  }
}
