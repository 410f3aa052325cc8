/** Why a report could not be written. */
export type ReportErrorCode =
  | 'REPORT_RUN_ID_INVALID'
  | 'REPORT_EXISTS'
  | 'REPORT_WRITE_FAILED'
  | 'REPORT_LATEST_NOT_UPDATED';

/** A report folder, file or the `latest` link that could not be written; callers branch on `code`. */
export class ReportError extends Error {
  readonly code: ReportErrorCode;

  constructor(code: ReportErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReportError';
    this.code = code;
  }
}
