import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Dispatcher } from 'undici';
import { CLIENT_CONTRACT } from '../contract/client-contract.js';
import type {
  Card,
  CardAmountOrderRequest,
  CardOrderRequest,
  IssueCardRequest,
  ListCardsQuery,
  ListTransactionsQuery,
  MerchantBalance,
  Offering,
  OperationId,
  OrderReference,
  SensitiveCardInfo,
  Transaction,
} from '../contract/index.js';
import { AdaptiveLimiter, type Permit } from './adaptive-limiter.js';
import {
  type AttemptFailure,
  bodyFailure,
  envelopeFailure,
  headerValue,
  statusFailure,
  transportFailure,
} from './attempt-failure.js';
import type { ListResult, OrderResult, PageResult } from './call-results.js';
import {
  type CallOptions,
  type CardIssuingClientOptions,
  type ResolvedClientOptions,
  resolveClientOptions,
} from './client-options.js';
import { createAgent } from './create-agent.js';
import { parseHttpDate } from './http-date.js';
import { MalformedRecordError } from './malformed-record-error.js';
import { type ResponseContext, ResponseValidator, type Validation } from './response-validator.js';
import { retryDelay } from './retry-policy.js';
import {
  type OutgoingRequest,
  parseBody,
  type ReceivedBody,
  type ReceivedResponse,
  sendRequest,
} from './send-request.js';
import { UpstreamClock } from './upstream-clock.js';
import { UpstreamError } from './upstream-error.js';

/** The upstream's clock as last seen; what a caller needs to place its cutoffs in upstream time. */
export interface UpstreamTime {
  /** The upstream's present in epoch ms, as its `Date` headers show it, or undefined before any. */
  upstreamNow(): number | undefined;
}

/** Counters for progress lines and benchmarks. */
export interface ClientStats {
  /** Requests sent, retries included. */
  requests: number;
  retries: number;
  /** 429 answers received. */
  rateLimited: number;
  /** The adaptive limiter's current limit on requests in flight. */
  concurrencyLimit: number;
}

/**
 * A valid envelope that arrives garbled again and again is not a transport accident; give up
 * after this many attempts rather than the full retry budget.
 */
const ENVELOPE_ATTEMPTS = 3;

/** undici's diagnostics channel published as a request's first bytes are written. */
const SEND_HEADERS = 'undici:client:sendHeaders';

type AttemptOutcome<R> = { ok: true; value: R } | { ok: false; failure: AttemptFailure };

/** Turns a 2xx body into the call's result, or says the envelope is broken. */
type Interpret<R> = (response: ReceivedResponse, context: ResponseContext) => Validation<R>;

interface CallInput {
  readonly query?: Readonly<Record<string, unknown>> | undefined;
  readonly body?: unknown;
  /** A 2xx without a body is an answer (`interpret` gets `body: undefined`), not a broken one. */
  readonly emptyBodyAnswers?: boolean;
}

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, signal ? { signal } : undefined);
}

/** Any 2xx is success (reference-model section 7). */
function isSuccess(status: number): boolean {
  return status >= 200 && status <= 299;
}

function plural(n: number): string {
  return n === 1 ? '1 attempt' : `${n} attempts`;
}

/**
 * The card-issuing API over HTTPS: the twelve operations of the contract, each response
 * validated against it, with retries, a shared adaptive rate budget and coded errors.
 *
 * Retries. Reads are retried on 429, 5xx, resets and refused connections, timeouts and bodies cut
 * short, with full-jitter exponential backoff, honouring Retry-After (capped). Orders (POSTs) are
 * retried on the same conditions, but only by resending the identical body with the same
 * `merchantOrderNo`: the upstream answers a repeated reference with the original order
 * (`idempotent-replayed: true`) and changes nothing, so a lost answer can never become a second
 * order. No other 4xx is retried, nor a TLS verification failure.
 *
 * Validation. A list record that breaks the contract lands in `rejected` as a
 * {@link MalformedRecordError} carrying the raw record, and the rest of the page is kept. A
 * single-record call (getCard, getSensitiveCard, getMerchantBalance, and the order reference of
 * a POST) throws the {@link MalformedRecordError} instead; it is not retried. A broken envelope
 * (not JSON, cut short, or the wrong shape) is retried like a truncated body and then thrown as
 * UPSTREAM_MALFORMED_RESPONSE.
 *
 * The API key goes only into the `x-api-key` header: no message, log line or error of this
 * client carries it.
 * @example
 * const api = new CardIssuingClient({ baseUrl, apiKey, ca, concurrency: 8, logger });
 * const page = await api.listTransactions({ startTime, endTime, page: 1, limit: 100 }, { signal });
 * await api.close();
 */
export class CardIssuingClient implements UpstreamTime {
  readonly #options: ResolvedClientOptions;
  readonly #dispatcher: Dispatcher;
  readonly #ownAgent: Dispatcher | undefined;
  readonly #limiter: AdaptiveLimiter;
  readonly #validator = new ResponseValidator();
  readonly #logger: Logger | undefined;
  readonly #random: () => number;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #upstreamClock = new UpstreamClock();
  readonly #counters = { requests: 0, retries: 0, rateLimited: 0 };

  /** @throws ClientConfigError for a non-https `baseUrl`, an empty `apiKey`, a bad `ca`... */
  constructor(options: CardIssuingClientOptions) {
    this.#options = resolveClientOptions(options);
    this.#random = options.random ?? Math.random;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#logger = options.logger?.child({ module: 'api' });
    this.#limiter = new AdaptiveLimiter({ max: this.#options.concurrency, sleep: this.#sleep });
    this.#ownAgent = options.dispatcher ? undefined : createAgent(this.#options);
    this.#dispatcher = options.dispatcher ?? (this.#ownAgent as Dispatcher);
  }

  /** One page of the merchant's cards (GET /cards). */
  listCards(query: ListCardsQuery = {}, options: CallOptions = {}): Promise<PageResult<Card>> {
    return this.#page<Card>('listCards', query, options);
  }

  /** One page of card transactions (GET /transactions). */
  listTransactions(
    query: ListTransactionsQuery = {},
    options: CallOptions = {},
  ): Promise<PageResult<Transaction>> {
    return this.#page<Transaction>('listTransactions', query, options);
  }

  /** A card's details (GET /cards/info); unknown: UPSTREAM_REJECTED 404 CARD_NOT_FOUND. */
  getCard(cardId: string, options: CallOptions = {}): Promise<Card> {
    return this.#single<Card>('getCard', { query: { cardId } }, options);
  }

  /** A card's number, security code and expiry (GET /cards/sensitive). */
  getSensitiveCard(cardId: string, options: CallOptions = {}): Promise<SensitiveCardInfo> {
    return this.#single<SensitiveCardInfo>('getSensitiveCard', { query: { cardId } }, options);
  }

  /** The merchant's balance (GET /merchants/balance). */
  getMerchantBalance(options: CallOptions = {}): Promise<MerchantBalance> {
    return this.#single<MerchantBalance>('getMerchantBalance', {}, options);
  }

  /** The card offerings available to the merchant (GET /merchants/offerings). */
  listOfferings(options: CallOptions = {}): Promise<ListResult<Offering>> {
    return this.#call('listOfferings', {}, options, (response, context) =>
      this.#validator.list<Offering>('listOfferings', response.body, context),
    );
  }

  /** Submit a card issuance (POST /cards). */
  issueCard(body: IssueCardRequest, options: CallOptions = {}): Promise<OrderResult> {
    return this.#order('issueCard', body, options);
  }

  /** Submit a deposit to a card (POST /cards/deposit). */
  deposit(body: CardAmountOrderRequest, options: CallOptions = {}): Promise<OrderResult> {
    return this.#order('deposit', body, options);
  }

  /** Submit a withdrawal from a card (POST /cards/withdraw). */
  withdraw(body: CardAmountOrderRequest, options: CallOptions = {}): Promise<OrderResult> {
    return this.#order('withdraw', body, options);
  }

  /** Freeze a card (POST /cards/freeze). */
  freezeCard(body: CardOrderRequest, options: CallOptions = {}): Promise<OrderResult> {
    return this.#order('freezeCard', body, options);
  }

  /** Unfreeze a card (POST /cards/unfreeze). */
  unfreezeCard(body: CardOrderRequest, options: CallOptions = {}): Promise<OrderResult> {
    return this.#order('unfreezeCard', body, options);
  }

  /** Request a card's cancellation (POST /cards/cancel). */
  cancelCard(body: CardOrderRequest, options: CallOptions = {}): Promise<OrderResult> {
    return this.#order('cancelCard', body, options);
  }

  /**
   * The upstream's present, epoch ms: the local clock, corrected by as much as the answers'
   * `Date` headers show it to be off (see {@link UpstreamClock}); undefined before any answer.
   */
  upstreamNow(): number | undefined {
    return this.#upstreamClock.now();
  }

  /**
   * The earliest the upstream's present can be by its answers' `Date` headers, epoch ms (the
   * local clock while it agrees with them; see {@link UpstreamClock.earliest}); undefined before
   * any answer. A time stamped before a request leaves, on it, is not after the upstream took it.
   */
  upstreamEarliest(): number | undefined {
    return this.#upstreamClock.earliest();
  }

  /** Stats for progress and benchmarks: requests, retries, 429s, the current concurrency limit. */
  stats(): ClientStats {
    return { ...this.#counters, concurrencyLimit: this.#limiter.limit };
  }

  /** Close the client's own connection pool (an injected dispatcher is left to its owner). */
  async close(): Promise<void> {
    await this.#ownAgent?.close();
  }

  #page<T>(operation: OperationId, query: object, options: CallOptions): Promise<PageResult<T>> {
    return this.#call(operation, { query: query as Record<string, unknown> }, options, (r, c) =>
      this.#validator.page<T>(operation, r.body, c),
    );
  }

  async #single<T>(operation: OperationId, input: CallInput, options: CallOptions): Promise<T> {
    const value = await this.#call(operation, input, options, (r, c) =>
      this.#validator.single<T>(operation, r.body, c),
    );
    if (value instanceof MalformedRecordError) throw value;
    return value;
  }

  async #order(
    operation: OperationId,
    body: { readonly merchantOrderNo: string },
    options: CallOptions,
  ): Promise<OrderResult> {
    let replayed = false;
    let status = 0;
    const input = { body, emptyBodyAnswers: true };
    type Reference = OrderReference | MalformedRecordError | undefined;
    const reference = await this.#call(operation, input, options, (r, c): Validation<Reference> => {
      replayed = headerValue(r.headers, 'idempotent-replayed') === 'true';
      status = r.status;
      // Any 2xx is success, a 204 No Content too: the order was taken, without a reference.
      if (r.body === undefined) return { ok: true, value: undefined };
      return this.#validator.single<OrderReference>(operation, r.body, c);
    });
    if (reference instanceof MalformedRecordError) throw reference;
    return {
      orderNo: reference?.orderNo,
      merchantOrderNo: reference?.merchantOrderNo ?? body.merchantOrderNo,
      replayed,
      status,
    };
  }

  #url(operation: OperationId, query: CallInput['query']): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.set(name, String(value));
    }
    const search = params.size > 0 ? `?${params}` : '';
    return `${this.#options.origin}${this.#options.pathPrefix}${CLIENT_CONTRACT.operations[operation].path}${search}`;
  }

  /**
   * Run one operation to success or a final error: take a slot in the shared limiter, send,
   * judge the answer, and back off and resend while the failure is retryable and attempts last.
   * The body is serialised once, so every attempt of an order resends the same bytes.
   */
  async #call<R>(
    operation: OperationId,
    input: CallInput,
    options: CallOptions,
    interpret: Interpret<R>,
  ): Promise<R> {
    const { signal } = options;
    const route = CLIENT_CONTRACT.operations[operation];
    const url = this.#url(operation, input.query);
    const body = input.body === undefined ? undefined : JSON.stringify(input.body);
    const headers: Record<string, string> = {
      'x-api-key': this.#options.apiKey,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const { retry } = this.#options;
    let envelopeFailures = 0;
    let waitedUntil = Number.NEGATIVE_INFINITY;
    for (let attempt = 1; ; attempt++) {
      let permit: Permit;
      try {
        permit = await this.#limiter.acquire(signal, waitedUntil);
      } catch (error) {
        throw this.#aborted(operation, attempt - 1, error);
      }
      let outcome: AttemptOutcome<R>;
      try {
        outcome = await this.#attempt(operation, attempt, permit, interpret, input, {
          url,
          method: route.method,
          headers,
          body,
          signal,
          headersTimeoutMs: this.#options.timeouts.headersMs,
          bodyTimeoutMs: this.#options.timeouts.bodyMs,
          bodyTotalMs: this.#options.timeouts.bodyTotalMs,
          maxBodyBytes: this.#options.maxBodyBytes,
        });
      } finally {
        permit.release();
      }
      if (outcome.ok) return outcome.value;
      const { failure } = outcome;
      if (signal?.aborted) throw this.#aborted(operation, attempt, signal.reason);
      if (failure.retry === 'envelope') envelopeFailures += 1;
      const retryable =
        failure.retry === 'yes' ||
        (failure.retry === 'envelope' && envelopeFailures < ENVELOPE_ATTEMPTS);
      if (!retryable || attempt >= retry.maxAttempts) {
        this.#logger?.debug(
          { operation, attempts: attempt, code: failure.code, status: failure.status },
          'upstream call failed',
        );
        throw new UpstreamError(
          failure.code,
          `${operation}: ${failure.message} (${plural(attempt)})`,
          {
            operation,
            attempts: attempt,
            status: failure.status,
            upstreamCode: failure.upstreamCode,
            requestId: failure.requestId,
            cause: failure.cause,
          },
        );
      }
      const wait = retryDelay(attempt, failure.retryAfterMs, retry, this.#random);
      this.#counters.retries += 1;
      this.#logger?.debug(
        {
          operation,
          attempt,
          code: failure.code,
          status: failure.status,
          reason: failure.message,
          delayMs: wait,
        },
        'retrying upstream call',
      );
      waitedUntil = Date.now() + wait;
      try {
        await this.#sleep(wait, signal);
        signal?.throwIfAborted();
      } catch (error) {
        throw this.#aborted(operation, attempt, error);
      }
    }
  }

  /**
   * Have `operation`'s validators compiled (Ajv loaded: about 30 ms in all) once the client's
   * first request is written, while it waits for its answer, rather than before sending it or
   * after the answer came. A sync's first request goes out alone (the first page of cards), and
   * until its answer the process has nothing else to do. undici announces the write on its
   * documented `undici:client:sendHeaders` channel (any client's request will do: compiling
   * early is harmless); the compile waits for the next turn, after the write. Returns the
   * unsubscribing, for an attempt that ends before anything was written.
   */
  #prepareOnceSent(operation: OperationId): () => void {
    const onSent = () => {
      stop();
      setImmediate(() => {
        try {
          this.#validator.prepare(operation);
        } catch {
          // The answer's validation meets the same problem, and reports it.
        }
      });
    };
    let subscribed = true;
    const stop = () => {
      if (subscribed) unsubscribe(SEND_HEADERS, onSent);
      subscribed = false;
    };
    subscribe(SEND_HEADERS, onSent);
    return stop;
  }

  async #attempt<R>(
    operation: OperationId,
    attempt: number,
    permit: Permit,
    interpret: Interpret<R>,
    input: CallInput,
    outgoing: OutgoingRequest,
  ): Promise<AttemptOutcome<R>> {
    let received: ReceivedBody;
    this.#counters.requests += 1;
    const stopPreparing =
      this.#counters.requests === 1 ? this.#prepareOnceSent(operation) : undefined;
    const sent = Date.now();
    try {
      received = await sendRequest(this.#dispatcher, outgoing);
    } catch (error) {
      const baseUrl = `${this.#options.origin}${this.#options.pathPrefix}`;
      const failure = transportFailure(error, baseUrl, this.#options.proxy?.shown);
      return { ok: false, failure };
    } finally {
      stopPreparing?.();
    }
    const arrived = Date.now();
    if (isSuccess(received.status)) {
      // The request is over: its slot goes to the next one now, and this body is parsed and
      // checked two turns later, once undici has written that request. (Before writing on a
      // keep-alive socket that just answered, undici waits for an immediate of its own, which
      // a single turn would run ahead of.) So the next round trip overlaps this CPU work
      // instead of following it. Other answers keep the slot: a 429 halves the limit before
      // anyone else takes it.
      permit.release();
      await nextTurn();
      await nextTurn();
    }
    const response = parseBody(received);
    const date = parseHttpDate(headerValue(response.headers, 'date') ?? '');
    if (date !== undefined) this.#upstreamClock.observe(date, sent, arrived);
    const { status } = response;
    if (!isSuccess(status)) {
      const failure = statusFailure(response, {
        nowMs: date ?? Date.now(),
        retryAfterCapMs: this.#options.retry.retryAfterCapMs,
        secret: this.#options.apiKey,
      });
      if (status === 429) this.#rateLimited(operation, permit, failure.retryAfterMs);
      return { ok: false, failure };
    }
    const answeredEmpty = input.emptyBodyAnswers === true && received.bytes?.length === 0;
    if (response.bodyProblem !== undefined && !answeredEmpty)
      return { ok: false, failure: bodyFailure(response, this.#options.maxBodyBytes) };
    const requestId = headerValue(response.headers, 'x-request-id');
    const checked = interpret(response, {
      attempts: attempt,
      status,
      requestId,
      lossy: response.lossy,
      surrogateEscapes: response.surrogateEscapes,
      text: response.text,
    });
    if (!checked.ok) return { ok: false, failure: envelopeFailure(response, checked.reason) };
    this.#limiter.recordSuccess();
    return { ok: true, value: checked.value };
  }

  #rateLimited(operation: OperationId, permit: Permit, retryAfterMs: number | undefined): void {
    this.#counters.rateLimited += 1;
    if (this.#limiter.recordRateLimited(permit, retryAfterMs)) {
      this.#logger?.warn(
        { operation, retryAfterMs, concurrencyLimit: this.#limiter.limit },
        'upstream rate limit: concurrency halved',
      );
    }
  }

  #aborted(operation: OperationId, attempts: number, cause: unknown): UpstreamError {
    return new UpstreamError('UPSTREAM_ABORTED', `${operation}: aborted (${plural(attempts)})`, {
      operation,
      attempts,
      cause,
    });
  }
}
