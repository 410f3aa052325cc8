/** Why a metrics file cannot be written. */
export type MetricsFileErrorCode = 'METRICS_FILE_NOT_REGULAR';

/** A metrics file path that names something other than a regular file; callers branch on `code`. */
export class MetricsFileError extends Error {
  readonly code: MetricsFileErrorCode;

  constructor(code: MetricsFileErrorCode, message: string) {
    super(message);
    this.name = 'MetricsFileError';
    this.code = code;
  }
}
