import type { Logger } from 'pino';
import type { CardIssuingClient, OrderResult } from '../api/index.js';
import { UpstreamError } from '../api/upstream-error.js';
import type { OrderKind } from '../contract/index.js';
import type { SqliteDatabase } from '../mirror/sqlite-database.js';
import { isKnownCurrency } from '../money/currency.js';
import {
  type CardOrder,
  describeCardOrder,
  type OrderBody,
  orderBody,
  orderOfBody,
  sameCardOrder,
} from './card-order.js';
import { isMerchantOrderNo, newMerchantOrderNo } from './merchant-order-no.js';
import { checkOrderAmount } from './order-amount.js';
import { OrderDeskError } from './order-desk-error.js';
import { type JournaledOrder, OrderJournal, type SubmittedOrder } from './order-journal.js';
import { isForgottenRefusal, refusalCode } from './order-refusal.js';

/**
 * How far ahead of the desk's clock a card's latest journaled order may lie and still be taken
 * for an earlier reading of the same clock: each command learns the upstream's clock from the
 * `Date` headers of its own answers, to the second, so two commands a moment apart may read it
 * a second or two apart (more when an answer was slow). A stamp further ahead is on another
 * clock (an imported file's, a host's) and is not followed.
 */
const READINGS_APART_MS = 10_000;

/** The six order calls of the client: all the desk needs of the upstream. */
export type OrderApi = Pick<
  CardIssuingClient,
  'issueCard' | 'deposit' | 'withdraw' | 'freezeCard' | 'unfreezeCard' | 'cancelCard'
>;

/** What the desk works with. */
export interface OrderDeskOptions {
  readonly db: SqliteDatabase;
  readonly api: OrderApi;
  /** The merchant every order is journaled for. */
  readonly merchantId: string;
  /** The merchant's currency: money orders are checked against it and journaled in it. */
  readonly currency?: string | undefined;
  readonly clock?: () => Date;
  /** How a merchantOrderNo is made when none is given (default {@link newMerchantOrderNo}). */
  readonly newMerchantOrderNo?: (now: Date) => string;
  readonly logger?: Logger;
}

/** Where an order stands after the desk handled it. */
export interface OrderOutcome {
  readonly merchantOrderNo: string;
  readonly kind: OrderKind;
  /** SUBMITTED: sent, but no answer says whether the upstream took it; retry to settle it. */
  readonly state: 'ACCEPTED' | 'REJECTED' | 'SUBMITTED';
  readonly orderNo: string | null;
  /** REJECTED: the upstream's error code (`INSUFFICIENT_BALANCE`, `UNAUTHORIZED`, ...). */
  readonly errorCode: string | null;
  /** A request left during this call. */
  readonly sent: boolean;
  /** The upstream answered from its idempotency store (`idempotent-replayed: true`). */
  readonly replayed: boolean;
  /** Answered from the journal, without sending (the order was already settled). */
  readonly fromJournal: boolean;
  /** Why the order is REJECTED or still SUBMITTED, when this call sent it. */
  readonly error?: UpstreamError;
}

/** Options of one order. */
export interface SubmitOptions {
  /** The merchant's reference; generated when absent (docs/journal.md gives the format). */
  readonly merchantOrderNo?: string | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** When a fresh order was stamped as submitted: the stamp, and `performance.now()` then. */
interface Stamp {
  readonly at: number;
  readonly local: number;
}

type Decision =
  | {
      readonly send: OrderBody;
      readonly kind: OrderKind;
      /** First sending of this body: no earlier attempt may have been taken. */
      readonly fresh: boolean;
      /** Its `submitted_at`, when this call stamped it. */
      readonly stamp?: Stamp;
    }
  | { readonly answer: OrderOutcome };

/**
 * Places orders through the upstream with the journal written first: an order is journaled
 * `SUBMITTED`, with the exact request body, in its own committed transaction before the request
 * leaves; the answer then settles it `ACCEPTED` with the upstream's orderNo, or `REJECTED` with
 * the error code. A crash or a lost answer in between leaves the row SUBMITTED; sending the same
 * merchantOrderNo again (by {@link OrderDesk.submit} with the same parameters, or
 * {@link OrderDesk.settle}) resends the journaled body unchanged, and the upstream's idempotent
 * replay settles it without a second order.
 *
 * A merchantOrderNo already ACCEPTED (or finally REJECTED) is answered from the journal without
 * sending. Refusals the upstream forgets (401, 400) free the reference for another attempt.
 *
 * @example
 * const desk = new OrderDesk({ db: mirror.db, api, merchantId: 'mch_1', currency: 'USD' });
 * const outcome = await desk.submit({ kind: 'DEPOSIT', cardId: 'card_1', amount: '25.00' });
 * // { state: 'ACCEPTED', orderNo: 'ord_…', merchantOrderNo: 'cs-20261121T020000Z-…', ... }
 */
export class OrderDesk {
  readonly #journal: OrderJournal;
  readonly #api: OrderApi;
  readonly #merchantId: string;
  readonly #currency: string | undefined;
  readonly #clock: () => Date;
  readonly #newMerchantOrderNo: (now: Date) => string;
  readonly #logger: Logger | undefined;

  constructor(options: OrderDeskOptions) {
    this.#journal = new OrderJournal(options.db);
    this.#api = options.api;
    this.#merchantId = options.merchantId;
    this.#currency = options.currency;
    this.#clock = options.clock ?? (() => new Date());
    this.#newMerchantOrderNo = options.newMerchantOrderNo ?? ((now) => newMerchantOrderNo(now));
    this.#logger = options.logger?.child({ module: 'order-desk' });
  }

  /**
   * Journal and send `order`, or answer it from the journal when its merchantOrderNo is
   * already settled. Upstream failures are results (`state` REJECTED or SUBMITTED, `error`).
   * @throws OrderDeskError ORDER_INVALID or ORDER_CONFLICT before anything is written or sent;
   *   JOURNAL_WRITE_FAILED when the answer could not be recorded.
   */
  async submit(order: CardOrder, options: SubmitOptions = {}): Promise<OrderOutcome> {
    const merchantOrderNo = options.merchantOrderNo ?? this.#newMerchantOrderNo(this.#clock());
    const submitted = this.#checked(order, merchantOrderNo);
    const decision = this.#journal.atomically((): Decision => {
      const row = this.#journal.get(merchantOrderNo);
      if (!row) {
        const stamp = this.#submittedAt(submitted.cardId);
        this.#journal.insertSubmitted(submitted, new Date(stamp.at).toISOString());
        return {
          send: JSON.parse(submitted.requestJson) as OrderBody,
          kind: order.kind,
          fresh: true,
          stamp,
        };
      }
      const journaled = this.#ownRow(row);
      if (row.state === 'REJECTED' && isForgottenRefusal(row.error_code ?? '')) {
        const stamp = this.#submittedAt(submitted.cardId);
        this.#journal.reopen(submitted, new Date(stamp.at).toISOString());
        return {
          send: JSON.parse(submitted.requestJson) as OrderBody,
          kind: order.kind,
          fresh: true,
          stamp,
        };
      }
      if (!sameCardOrder(journaled.order, order))
        throw new OrderDeskError(
          'ORDER_CONFLICT',
          merchantOrderNo,
          `merchantOrderNo ${merchantOrderNo} is journaled ${row.state} for ${describeCardOrder(journaled.order)}, not ${describeCardOrder(order)}; use another merchantOrderNo`,
        );
      if (row.state === 'SUBMITTED')
        return { send: journaled.body, kind: journaled.order.kind, fresh: false };
      return { answer: answerOf(row) };
    });
    if ('answer' in decision) return decision.answer;
    this.#logger?.info(
      { merchantOrderNo, kind: decision.kind, resend: !decision.fresh },
      'order journaled SUBMITTED, sending',
    );
    return this.#send(
      merchantOrderNo,
      decision.kind,
      decision.send,
      decision.fresh,
      options.signal,
      decision.stamp,
    );
  }

  /**
   * Settle a journaled order: resend a SUBMITTED row's body unchanged (the upstream replays it
   * if it took it the first time), or answer an already settled one from the journal.
   * @throws OrderDeskError ORDER_NOT_FOUND, ORDER_CONFLICT (imported, or another merchant's),
   *   JOURNAL_WRITE_FAILED.
   */
  async settle(
    merchantOrderNo: string,
    options: { signal?: AbortSignal | undefined } = {},
  ): Promise<OrderOutcome> {
    const row = this.#journal.get(merchantOrderNo);
    if (!row)
      throw new OrderDeskError(
        'ORDER_NOT_FOUND',
        merchantOrderNo,
        `no journaled order has merchantOrderNo ${merchantOrderNo}`,
      );
    const journaled = this.#ownRow(row);
    if (row.state !== 'SUBMITTED') return answerOf(row);
    this.#logger?.info({ merchantOrderNo, kind: row.kind, resend: true }, 'settling order');
    return this.#send(merchantOrderNo, journaled.order.kind, journaled.body, false, options.signal);
  }

  /** The orders this project submitted for the merchant whose outcome is not known yet. */
  pending(): JournaledOrder[] {
    return this.#journal.submitted(this.#merchantId);
  }

  #checked(order: CardOrder, merchantOrderNo: string): SubmittedOrder {
    if (!isMerchantOrderNo(merchantOrderNo))
      throw new OrderDeskError(
        'ORDER_INVALID',
        merchantOrderNo,
        `merchantOrderNo must be 1-64 printable ASCII characters without spaces, got ${JSON.stringify(merchantOrderNo)}`,
      );
    let amount: string | null = null;
    let amountMinor: number | null = null;
    if ('amount' in order) {
      const currency = this.#currency;
      if (currency === undefined)
        throw new OrderDeskError(
          'ORDER_INVALID',
          merchantOrderNo,
          `the currency of merchant ${this.#merchantId} is unknown; cannot check the amount`,
        );
      if (!isKnownCurrency(currency))
        throw new OrderDeskError(
          'ORDER_INVALID',
          merchantOrderNo,
          `amount: ${currency} is a currency whose exponent is unknown to cardsync; cannot check the amount`,
        );
      const checked = checkOrderAmount(order.amount, currency);
      if (!checked.ok)
        throw new OrderDeskError('ORDER_INVALID', merchantOrderNo, `amount: ${checked.reason}`);
      if (checked.minor === null)
        throw new OrderDeskError(
          'ORDER_INVALID',
          merchantOrderNo,
          `amount: ${order.amount} has more decimals than ${currency} allows`,
        );
      amount = order.amount;
      amountMinor = checked.minor;
    }
    return {
      merchantOrderNo,
      merchantId: this.#merchantId,
      kind: order.kind,
      cardId: 'cardId' in order ? order.cardId : null,
      offeringId: order.kind === 'ISSUE' ? order.offeringId : null,
      amount,
      amountMinor,
      currency: amount === null ? null : (this.#currency ?? null),
      requestJson: JSON.stringify(orderBody(order, merchantOrderNo)),
    };
  }

  /** A row this desk may act on, with its journaled order and body. */
  #ownRow(row: JournaledOrder): { order: CardOrder; body: OrderBody } {
    const conflict = (why: string) =>
      new OrderDeskError(
        'ORDER_CONFLICT',
        row.merchant_order_no,
        `merchantOrderNo ${row.merchant_order_no} ${why}`,
      );
    if (row.merchant_id !== this.#merchantId)
      throw conflict(`is journaled for merchant ${row.merchant_id}, not ${this.#merchantId}`);
    if (row.source !== 'cli' || row.request_json === null || row.kind === 'TOPUP')
      throw conflict(
        `is an order imported from the merchant's books (${row.import_file ?? 'a file'} line ${row.import_line ?? '?'}); cardsync does not submit it`,
      );
    const body = JSON.parse(row.request_json) as OrderBody;
    const kind = row.kind as CardOrder['kind'];
    return { order: orderOfBody(kind, body as Record<string, string | undefined>), body };
  }

  async #send(
    merchantOrderNo: string,
    kind: OrderKind,
    body: OrderBody,
    fresh: boolean,
    signal: AbortSignal | undefined,
    stamp?: Stamp,
  ): Promise<OrderOutcome> {
    const base = { merchantOrderNo, kind, sent: true, fromJournal: false };
    const sending = performance.now();
    let result: OrderResult;
    try {
      result = await this.#call(kind, body, signal);
    } catch (error) {
      if (!(error instanceof UpstreamError)) throw error;
      // A 401 proves only that this attempt was not taken; an earlier one of the same body may
      // have been (an earlier run's, or this call's own first attempt, whose answer was lost
      // before the key was revoked), so such a 401 leaves the order SUBMITTED.
      const earlierAttempt = !fresh || error.attempts > 1;
      const code =
        earlierAttempt && error.code === 'UPSTREAM_UNAUTHORIZED' ? undefined : refusalCode(error);
      if (code === undefined) {
        this.#logger?.warn(
          { merchantOrderNo, kind, err: error },
          'order outcome unknown; it stays SUBMITTED until a retry settles it',
        );
        return {
          ...base,
          state: 'SUBMITTED',
          orderNo: null,
          errorCode: null,
          replayed: false,
          error,
        };
      }
      this.#record(merchantOrderNo, { state: 'REJECTED', errorCode: code }, stamp);
      this.#logger?.info({ merchantOrderNo, kind, errorCode: code }, 'order rejected');
      return { ...base, state: 'REJECTED', orderNo: null, errorCode: code, replayed: false, error };
    }
    // A resend the upstream did not replay placed the order now: its first sending never
    // arrived. Kept at that sending's stamp, hours back, a FREEZE made the purchases of the
    // hours between ACTIVITY_ON_INACTIVE_CARD.
    const placedAt =
      fresh || result.replayed ? undefined : this.#upstreamTimeAt(sending).toISOString();
    this.#record(merchantOrderNo, { state: 'ACCEPTED', orderNo: result.orderNo }, stamp, placedAt);
    this.#logger?.info(
      { merchantOrderNo, kind, orderNo: result.orderNo, replayed: result.replayed },
      'order accepted',
    );
    return {
      ...base,
      state: 'ACCEPTED',
      orderNo: result.orderNo ?? null,
      errorCode: null,
      replayed: result.replayed,
    };
  }

  /**
   * Settle the row. When it is no longer SUBMITTED, another process sending the same
   * merchantOrderNo at the same time settled it first, from the same upstream answer.
   */
  #record(
    merchantOrderNo: string,
    outcome: { state: 'ACCEPTED' | 'REJECTED'; orderNo?: string; errorCode?: string },
    stamp?: Stamp,
    placedAt?: string,
  ): void {
    try {
      const submittedAt = placedAt ?? this.#restamped(stamp);
      if (!this.#journal.settle(merchantOrderNo, outcome, this.#now(), submittedAt))
        this.#logger?.debug({ merchantOrderNo }, 'order already settled by another process');
    } catch (cause) {
      const answer =
        outcome.state === 'ACCEPTED'
          ? `accepted${outcome.orderNo === undefined ? '' : ` as ${outcome.orderNo}`}`
          : `rejected with ${outcome.errorCode}`;
      throw new OrderDeskError(
        'JOURNAL_WRITE_FAILED',
        merchantOrderNo,
        `order ${merchantOrderNo} was ${answer} but the journal could not record it (${(cause as Error).message}); it stays SUBMITTED: run cardsync orders settle`,
        { cause },
      );
    }
  }

  #call(kind: OrderKind, body: OrderBody, signal: AbortSignal | undefined): Promise<OrderResult> {
    const options = signal ? { signal } : {};
    switch (kind) {
      case 'ISSUE':
        return this.#api.issueCard(body as Parameters<OrderApi['issueCard']>[0], options);
      case 'DEPOSIT':
        return this.#api.deposit(body as Parameters<OrderApi['deposit']>[0], options);
      case 'WITHDRAW':
        return this.#api.withdraw(body as Parameters<OrderApi['withdraw']>[0], options);
      case 'FREEZE':
        return this.#api.freezeCard(body as Parameters<OrderApi['freezeCard']>[0], options);
      case 'UNFREEZE':
        return this.#api.unfreezeCard(body as Parameters<OrderApi['unfreezeCard']>[0], options);
      case 'CANCEL':
        return this.#api.cancelCard(body as Parameters<OrderApi['cancelCard']>[0], options);
    }
  }

  #now(): string {
    return this.#clock().toISOString();
  }

  /**
   * When an order leaves, never before the card's latest journaled order when that one lies
   * within {@link READINGS_APART_MS} ahead: the checks take a card's FREEZE and UNFREEZE in the
   * order of their `submitted_at`, and an UNFREEZE stamped before the FREEZE it followed left
   * the card ORDER_NOT_REFLECTED and every purchase after it ACTIVITY_ON_INACTIVE_CARD.
   */
  #submittedAt(cardId: string | null): Stamp {
    const local = performance.now();
    const now = this.#clock().getTime();
    const latest = cardId === null ? undefined : this.#journal.latestSubmission(cardId);
    const after = latest === undefined ? Number.NaN : Date.parse(latest) + 1;
    return { at: after > now && after - now <= READINGS_APART_MS ? after : now, local };
  }

  /**
   * The submission time on the clock as the order's own answer set it, when the stamp lies
   * further from it than {@link READINGS_APART_MS}: the stamp was taken on the host's clock, the
   * upstream's not being known yet (its one reading got no answer in time). On a host hours off,
   * such a FREEZE made the purchases of the hours before it ACTIVITY_ON_INACTIVE_CARD.
   */
  #restamped(stamp: Stamp | undefined): string | undefined {
    if (stamp === undefined) return undefined;
    const at = this.#upstreamTimeAt(stamp.local).getTime();
    return Math.abs(at - stamp.at) > READINGS_APART_MS ? new Date(at).toISOString() : undefined;
  }

  /** The upstream's time at `local` (a `performance.now()`), on the clock as it stands now. */
  #upstreamTimeAt(local: number): Date {
    return new Date(this.#clock().getTime() - (performance.now() - local));
  }
}

/** A settled row's outcome, answered from the journal. */
function answerOf(row: JournaledOrder): OrderOutcome {
  return {
    merchantOrderNo: row.merchant_order_no,
    kind: row.kind as OrderKind,
    state:
      row.state === 'REJECTED' ? 'REJECTED' : row.state === 'ACCEPTED' ? 'ACCEPTED' : 'SUBMITTED',
    orderNo: row.order_no,
    errorCode: row.error_code,
    sent: false,
    replayed: false,
    fromJournal: true,
  };
}
