import { STATUS_CODES } from 'node:http';
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '../../contract/index.js';

/** An answer the service gives as an error body (reference-model section 1). */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly statusCode: number;
  readonly details: string | string[];

  constructor(code: ErrorCode, details: string | string[]) {
    super(Array.isArray(details) ? details.join('; ') : details);
    this.name = 'ApiError';
    this.code = code;
    this.statusCode = ERROR_STATUS[code];
    this.details = details;
  }

  /** The body this error is answered with. */
  toBody(): ErrorBody {
    return errorBody(this.code, this.details);
  }
}

/** The error body for `code`. */
export function errorBody(code: ErrorCode, message: string | string[]): ErrorBody {
  const statusCode = ERROR_STATUS[code];
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', code, message };
}
