/**
 * Every error code the service answers with, and its HTTP status (reference-model section 1,
 * plus the transport-level refusals the table implies).
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  HOLDER_REQUIRED: 400,
  HTTPS_REQUIRED: 403,
  CARD_NOT_FOUND: 404,
  OFFERING_NOT_FOUND: 404,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  INVALID_CARD_STATE: 409,
  DUPLICATE_ORDER: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HEADERS_TOO_LARGE: 431,
  LOAD_OUT_OF_BOUNDS: 422,
  INSUFFICIENT_BALANCE: 422,
  INSUFFICIENT_CARD_BALANCE: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;

/** A machine-readable error code of an error body. */
export type ErrorCode = keyof typeof ERROR_STATUS;
