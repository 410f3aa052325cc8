/** Why the findings store refused a request. */
export type FindingsErrorCode =
  | 'FINDING_UNKNOWN'
  | 'FINDING_RESOLVED'
  | 'ACK_INVALID'
  | 'RUN_ALREADY_RECORDED';

/** A refusal of the findings store; callers branch on `code`, and `field` names a bad input. */
export class FindingsError extends Error {
  readonly code: FindingsErrorCode;
  readonly field: string | undefined;

  constructor(code: FindingsErrorCode, message: string, options: { field?: string } = {}) {
    super(message);
    this.name = 'FindingsError';
    this.code = code;
    this.field = options.field;
  }
}
