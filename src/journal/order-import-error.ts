import type { ImportIssue } from './import-issue.js';

/** Why an order journal file was not imported. */
export type OrderImportErrorCode =
  /** The file cannot be read (missing, a directory, no permission). */
  | 'IMPORT_UNREADABLE'
  /** The file was read and refused whole: see `issues`, one per offending line. */
  | 'IMPORT_REFUSED'
  /** Stopped by its signal (SIGINT, SIGTERM) before the rows were written. */
  | 'IMPORT_INTERRUPTED';

/**
 * A journal file that was not imported; nothing was written. `issues` lists every offending
 * line with its reason (empty for IMPORT_UNREADABLE and IMPORT_INTERRUPTED).
 * @example
 * if (error instanceof OrderImportError && error.code === 'IMPORT_REFUSED')
 *   for (const issue of error.issues) console.log(`line ${issue.line}: ${issue.reason}`);
 */
export class OrderImportError extends Error {
  readonly code: OrderImportErrorCode;
  readonly file: string;
  readonly issues: readonly ImportIssue[];

  constructor(
    code: OrderImportErrorCode,
    file: string,
    message: string,
    issues: readonly ImportIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OrderImportError';
    this.code = code;
    this.file = file;
    this.issues = issues;
  }
}
