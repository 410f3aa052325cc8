import { firstCode } from '../error-causes.js';
import type { ExitCode } from './exit-codes.js';
import { EXIT_OUTCOMES } from './job-exit.js';

/** What a `--json` command prints on stdout when it ends without a result of its own. */
export interface ErrorJson {
  readonly exitCode: ExitCode;
  /** The exit code's name, as the metrics file and the `run finished` log line give it. */
  readonly outcome: string;
  readonly error: {
    /** The code of the error or of its first cause that has one (`CONFIG_INVALID`, `MIRROR_LOCKED`), else null. */
    readonly code: string | null;
    /** The one line stderr gets, without its `cardsync: ` prefix; never a key. */
    readonly message: string;
  };
}

/**
 * The error object of a `--json` command that failed before it had a result to print, so that
 * `cardsync run --json | jq` always has one document to read.
 * @example errorJson(2, error, 'CARDSYNC_BASE_URL: expected an https:// URL, got "http://x"')
 */
export function errorJson(exitCode: ExitCode, error: unknown, message: string): ErrorJson {
  return {
    exitCode,
    outcome: EXIT_OUTCOMES[exitCode],
    error: { code: errorCodeOf(error), message },
  };
}

/** The code of `error` or of its first cause that has one (`MIRROR_LOCKED`), else null. */
export function errorCodeOf(error: unknown): string | null {
  return firstCode(error) ?? null;
}
