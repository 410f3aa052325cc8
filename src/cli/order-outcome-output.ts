import { refusesCredentials } from '../api/index.js';
import type { MerchantSource } from '../config/index.js';
import type { OrderOutcome } from '../journal/order-desk.js';
import { isForgottenRefusal } from '../journal/order-refusal.js';
import { EXIT, ExitError } from './exit-codes.js';
import { refusedKeyMessage } from './refused-key.js';

/** An order's outcome as `--json` prints it. */
export function outcomeJson(outcome: OrderOutcome, merchantId: string): Record<string, unknown> {
  const { error } = outcome;
  return {
    merchantId,
    merchantOrderNo: outcome.merchantOrderNo,
    kind: outcome.kind,
    state: outcome.state,
    orderNo: outcome.orderNo,
    errorCode: outcome.errorCode,
    sent: outcome.sent,
    replayed: outcome.replayed,
    fromJournal: outcome.fromJournal,
    error:
      error === undefined
        ? null
        : {
            code: error.code,
            status: error.status ?? null,
            upstreamCode: error.upstreamCode ?? null,
            message: error.message,
          },
  };
}

/** The line a human reads for an accepted order. */
export function acceptedLine(outcome: OrderOutcome): string {
  const how = outcome.fromJournal
    ? 'already accepted; answered from the journal, nothing sent'
    : outcome.replayed
      ? 'accepted; the upstream replayed the earlier submission'
      : 'accepted';
  const order = outcome.orderNo === null ? 'no order number given' : `order ${outcome.orderNo}`;
  return `${outcome.kind} ${how}: ${order} (merchant order ${outcome.merchantOrderNo})\n`;
}

/**
 * How a command ends for an order that was not accepted: a refusal exits 7 (3 for the key) with
 * the way forward (a new reference, or the same one when the upstream forgets the refusal), an
 * unknown outcome 4 with the way to settle it (the same reference); undefined for an accepted order.
 */
export function outcomeExit(
  outcome: OrderOutcome,
  merchant: MerchantSource,
): ExitError | undefined {
  const { kind, merchantOrderNo: ref, error } = outcome;
  if (outcome.state === 'ACCEPTED') return undefined;
  if (outcome.state === 'SUBMITTED') {
    const refused = refusesCredentials(error?.code);
    const why =
      error?.code === 'UPSTREAM_ABORTED'
        ? 'interrupted'
        : refused
          ? refusedKeyMessage(merchant, error)
          : `upstream unavailable: ${error?.message ?? 'no answer'}`;
    return new ExitError(
      refused ? EXIT.UNAUTHORIZED : EXIT.SYNC_INCOMPLETE,
      // The reference goes in the advice: a generated one is new on every run, so repeating the
      // command without it would place a second order if the upstream took this one.
      `${kind} ${ref}: outcome unknown (${why}); journaled SUBMITTED: run it again with --merchant-order-no ${ref}, or cardsync orders settle`,
    );
  }
  if (outcome.errorCode === 'UNAUTHORIZED')
    return new ExitError(
      EXIT.UNAUTHORIZED,
      `${refusedKeyMessage(merchant)}; ${kind} ${ref} was not taken (journaled REJECTED UNAUTHORIZED; run it again once the key is right)`,
    );
  const refused = outcome.fromJournal
    ? `${kind} ${ref} was refused by the upstream earlier: ${outcome.errorCode}; answered from the journal, nothing sent`
    : `${kind} ${ref} refused by the upstream: ${outcome.errorCode}; journaled REJECTED${error ? ` (${error.message})` : ''}`;
  // The way forward depends on whether the upstream keeps the refusal against the reference:
  // re-running the same command after a top-up would otherwise only repeat the refusal.
  const next = isForgottenRefusal(outcome.errorCode ?? '')
    ? `the upstream does not keep this refusal: correct the order and run it again, with --merchant-order-no ${ref} if you like`
    : `the upstream keeps this refusal for ${ref}: once its cause is fixed, place the order again with a new --merchant-order-no (or none)`;
  return new ExitError(EXIT.REJECTED, `${refused}; ${next}`);
}
