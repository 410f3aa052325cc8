import { UpstreamError, type UpstreamErrorDetails } from './upstream-error.js';

/** The id fields a record may carry, most specific first. */
const ID_FIELDS = ['transactionId', 'cardId', 'id', 'orderNo'] as const;

/** The record's own id, when it has one as a string (a transaction's before its card's). */
function recordIdOf(raw: unknown): string | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  for (const field of ID_FIELDS) {
    const value = (raw as Record<string, unknown>)[field];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

/**
 * A record that does not match the contract, kept whole so the sync can quarantine it and go on.
 * Returned in `rejected` of a list; thrown by single-record calls.
 * @example for (const bad of page.rejected) quarantine(bad.recordId, bad.reason, bad.raw);
 */
export class MalformedRecordError extends UpstreamError {
  /** The record as it arrived, parsed by `JSON.parse` (its numbers as doubles). */
  readonly raw: unknown;
  /** Why it was refused: each schema violation as `instancePath message`, joined by `; `. */
  readonly reason: string;
  /** `transactionId`, `cardId`, `id` or `orderNo` of the raw record, if present. */
  readonly recordId: string | undefined;
  /** Private, so a logged error does not carry the record a second time. */
  readonly #sent: unknown;

  /**
   * @param sent the record re-read from the body text by `parseExactly`
   * (src/contract/exact-json.ts), its numbers as written; `raw` when the text is not at hand.
   */
  constructor(raw: unknown, reason: string, details: UpstreamErrorDetails, sent: unknown = raw) {
    const recordId = recordIdOf(raw);
    const which = recordId === undefined ? 'a record' : `record ${recordId}`;
    super('UPSTREAM_MALFORMED_RECORD', `${details.operation}: ${which} is malformed: ${reason}`, {
      ...details,
    });
    this.name = 'MalformedRecordError';
    this.raw = raw;
    this.reason = reason;
    this.recordId = recordId;
    this.#sent = sent;
  }

  /**
   * The record as the upstream wrote it, for the quarantine: each number a `LosslessNumber`
   * holding its text (`12.50`, `9007199254740993`, `1e400`, which `JSON.parse` reads as 12.5,
   * 9007199254740992 and Infinity), to be written back with `stringifyExactly`.
   */
  get sent(): unknown {
    return this.#sent;
  }
}
