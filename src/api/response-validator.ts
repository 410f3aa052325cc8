import { createRequire } from 'node:module';
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { CLIENT_CONTRACT } from '../contract/client-contract.js';
import type { ClientOperation, ResponseShape } from '../contract/client-contract-shape.js';
import type { OperationId } from '../contract/index.js';
import { utcInstant } from '../contract/utc-instant.js';
import type { ListResult, PageResult } from './call-results.js';
import { isCanonicalTimestamp } from './canonical-timestamp.js';
import { MalformedRecordError } from './malformed-record-error.js';
import { SentRecords } from './sent-records.js';

/** What a response body turned out to be; `ok: false` means the envelope itself is broken. */
export type Validation<T> = { ok: true; value: T } | { ok: false; reason: string };

/** What a rejected record's error carries about the response it came in. */
export interface ResponseContext {
  readonly attempts: number;
  readonly status?: number | undefined;
  readonly requestId?: string | undefined;
  /** The body was not UTF-8 throughout (see send-request.ts): a record showing U+FFFD is refused. */
  readonly lossy?: boolean | undefined;
  /** The body escapes a UTF-16 surrogate: a record holding one without its pair is refused. */
  readonly surrogateEscapes?: boolean | undefined;
  /**
   * The body's text: a refused record is read again from it as written, its numbers as sent
   * (see sent-records.ts); without it, the refused record is kept as parsed.
   */
  readonly text?: string | undefined;
}

/** A UTF-16 surrogate without its pair (the regular expression reads code units). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when a string of `value`, key or value, holds a lone surrogate. */
function holdsLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return value.some(holdsLoneSurrogate);
  return Object.entries(value).some(
    ([key, item]) => LONE_SURROGATE.test(key) || holdsLoneSurrogate(item),
  );
}

/**
 * Why a record's text cannot be mirrored as it came, if it cannot:
 * - from a body that was not UTF-8 throughout, it shows U+FFFD, so may hold a byte lost in
 *   decoding: mirrored, the record would differ from the upstream's unseen;
 * - it holds a lone surrogate (a `\uD800` escape with no pair): no Unicode text, so SQLite and
 *   every report would keep something else, and ids that differ only there would read back
 *   alike.
 */
function textProblem(record: unknown, context: ResponseContext): string | null {
  if (context.lossy === true && JSON.stringify(record).includes('\ufffd')) return LOST_BYTES;
  if (context.surrogateEscapes === true && holdsLoneSurrogate(record)) return LONE_SURROGATE_TEXT;
  return null;
}

const LOST_BYTES = 'holds bytes that are not UTF-8 (read as U+FFFD)';
const LONE_SURROGATE_TEXT =
  'holds a lone UTF-16 surrogate (a \\uD800-\\uDFFF escape without its pair): not Unicode text';

/** Where a record stands in its answer: item `index` of `data`, or `data` itself. */
interface RecordPlace {
  readonly sent: SentRecords;
  readonly index: number | undefined;
}

interface OperationValidators {
  readonly shape: ResponseShape;
  /** The envelope with `data` left unchecked beyond its JSON type. */
  readonly envelope: ValidateFunction;
  /** One item of a list, or the single record. */
  readonly record: ValidateFunction;
}

/**
 * Ajv as the client needs it: every error reported, nothing coerced, defaulted or removed. The
 * schemas are the contract's own (src/contract/client-contract.ts, derived from ROUTES and held
 * equal to it by a test), so Ajv does not check them against the JSON Schema meta-schema
 * (compiling that took about 30 ms of every run's start-up); the tests compile and exercise
 * every operation's.
 */
function createAjv(): Ajv {
  // Loaded on first use, not with the client: about 20 ms that held back the sync's first
  // request. The client has it loaded while that request is on the wire (see `prepare`). Ajv is
  // CommonJS, so it loads synchronously, and validating stays synchronous.
  const { Ajv } = createRequire(import.meta.url)('ajv') as typeof import('ajv');
  return new Ajv({
    strict: false,
    allErrors: true,
    coerceTypes: false,
    useDefaults: false,
    removeAdditional: false,
    validateSchema: false,
  });
}

function envelopeSchema(shape: ResponseShape): object {
  const data = { type: shape === 'single' ? 'object' : 'array' };
  if (shape === 'page') {
    return {
      type: 'object',
      required: ['data', 'pagination'],
      properties: { data, pagination: CLIENT_CONTRACT.pagination },
    };
  }
  return { type: 'object', required: ['data'], properties: { data } };
}

/** Ajv's errors as one readable line: `/amount must be string; /status must be one of A, B`. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string {
  if (!errors || errors.length === 0) return 'does not match the contract';
  return errors
    .map((e) => {
      const at = e.instancePath === '' ? '(record)' : e.instancePath;
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues;
      return allowed ? `${at} must be one of ${allowed.join(', ')}` : `${at} ${e.message}`;
    })
    .join('; ');
}

/**
 * Response validation compiled from the contract's schemas (src/contract/client-contract.ts).
 * A list is checked in two steps so one bad record costs only that record: first the envelope
 * with the items unchecked, then each item on its own.
 * @example
 * const v = new ResponseValidator();
 * const page = v.page<Card>('listCards', body, { attempts: 1 });
 * if (page.ok) { page.value.records; page.value.rejected; }
 */
export class ResponseValidator {
  #ajv: Ajv | undefined;
  readonly #envelopes = new Map<ResponseShape, ValidateFunction>();
  /** Compiled on first use: a run compiles only the operations it calls. */
  readonly #operations = new Map<OperationId, OperationValidators>();

  /** A paginated response (`listCards`, `listTransactions`). */
  page<T>(
    operation: OperationId,
    body: unknown,
    context: ResponseContext,
  ): Validation<PageResult<T>> {
    const checked = this.#envelope(operation, 'page', body);
    if (!checked.ok) return checked;
    const { data, pagination } = body as {
      data: unknown[];
      pagination: PageResult<T>['pagination'];
    };
    return { ok: true, value: { ...this.#items<T>(operation, data, context), pagination } };
  }

  /** An unpaginated list response (`listOfferings`). */
  list<T>(
    operation: OperationId,
    body: unknown,
    context: ResponseContext,
  ): Validation<ListResult<T>> {
    const checked = this.#envelope(operation, 'list', body);
    if (!checked.ok) return checked;
    return {
      ok: true,
      value: this.#items<T>(operation, (body as { data: unknown[] }).data, context),
    };
  }

  /**
   * A single-record response: the record, or a broken envelope. A well-formed envelope whose
   * record breaks the contract is returned as a {@link MalformedRecordError} for the caller to
   * throw.
   */
  single<T>(
    operation: OperationId,
    body: unknown,
    context: ResponseContext,
  ): Validation<T | MalformedRecordError> {
    const checked = this.#envelope(operation, 'single', body);
    if (!checked.ok) return checked;
    const raw = (body as { data: unknown }).data;
    const validate = this.#validators(operation).record;
    const at = { sent: new SentRecords(context.text), index: undefined };
    const problem = textProblem(raw, context);
    if (problem !== null)
      return { ok: true, value: this.#malformed(operation, raw, problem, context, at) };
    if (!validate(raw))
      return { ok: true, value: this.#rejection(operation, raw, validate, context, at) };
    return { ok: true, value: this.#canonical<T>(operation, raw, context, at) };
  }

  /**
   * Compile `operation`'s validators now (loading Ajv the first time), so that its first
   * response is not kept waiting for them: the client calls it while a request is on the wire.
   */
  prepare(operation: OperationId): void {
    this.#validators(operation);
  }

  #compiler(): Ajv {
    this.#ajv ??= createAjv();
    return this.#ajv;
  }

  #validators(operation: OperationId): OperationValidators {
    const found = this.#operations.get(operation);
    if (found) return found;
    const contract: ClientOperation | undefined = CLIENT_CONTRACT.operations[operation];
    const record = contract && CLIENT_CONTRACT.records[contract.record];
    if (!contract || !record) throw new Error(`no response schema for ${operation}`);
    const { shape } = contract;
    let envelope = this.#envelopes.get(shape);
    if (!envelope) {
      envelope = this.#compiler().compile(envelopeSchema(shape));
      this.#envelopes.set(shape, envelope);
    }
    const compiled = { shape, envelope, record: this.#compiler().compile(record) };
    this.#operations.set(operation, compiled);
    return compiled;
  }

  #envelope(operation: OperationId, shape: ResponseShape, body: unknown): Validation<true> {
    const validators = this.#validators(operation);
    if (validators.shape !== shape) throw new Error(`${operation} is not a ${shape} response`);
    if (validators.envelope(body)) return { ok: true, value: true };
    return { ok: false, reason: `envelope ${describeErrors(validators.envelope.errors)}` };
  }

  #items<T>(operation: OperationId, data: unknown[], context: ResponseContext): ListResult<T> {
    const validate = this.#validators(operation).record;
    const records: T[] = [];
    const rejected: MalformedRecordError[] = [];
    // Where each record stands in the answer, for a refused one to be read again as sent: one
    // object per page, its index moved along, so a record that passes allocates nothing more.
    const at = { sent: new SentRecords(context.text), index: 0 };
    for (; at.index < data.length; at.index++) {
      const item = data[at.index];
      const problem = textProblem(item, context);
      if (problem !== null) rejected.push(this.#malformed(operation, item, problem, context, at));
      else if (!validate(item))
        rejected.push(this.#rejection(operation, item, validate, context, at));
      else {
        const record = this.#canonical<T>(operation, item, context, at);
        if (record instanceof MalformedRecordError) rejected.push(record);
        else records.push(record);
      }
    }
    return { records, rejected };
  }

  /**
   * A valid record with its `createdAt` written the mirror's way (see canonical-timestamp.ts),
   * or refused when that is no real instant.
   */
  #canonical<T>(
    operation: OperationId,
    record: unknown,
    context: ResponseContext,
    at: RecordPlace,
  ): T | MalformedRecordError {
    const createdAt = (record as { createdAt?: unknown }).createdAt;
    if (typeof createdAt !== 'string' || isCanonicalTimestamp(createdAt)) return record as T;
    const canonical = utcInstant(createdAt);
    if (canonical === undefined)
      return this.#malformed(operation, record, '/createdAt is not a real instant', context, at);
    return { ...(record as object), createdAt: canonical } as T;
  }

  #rejection(
    operation: OperationId,
    raw: unknown,
    validate: ValidateFunction,
    context: ResponseContext,
    at: RecordPlace,
  ): MalformedRecordError {
    return this.#malformed(operation, raw, describeErrors(validate.errors), context, at);
  }

  #malformed(
    operation: OperationId,
    raw: unknown,
    reason: string,
    context: ResponseContext,
    at: RecordPlace,
  ): MalformedRecordError {
    const details = {
      operation,
      attempts: context.attempts,
      status: context.status,
      requestId: context.requestId,
    };
    return new MalformedRecordError(raw, reason, details, at.sent.record(at.index, raw));
  }
}
