import type { CardIssuingClient } from '../api/index.js';

/** How long the one request that sets the clock may take before the host's clock is used. */
const ASK_MS = 5_000;

/**
 * The clock an order placed from the command line is journaled on (`submitted_at`, the `updated_at`
 * of its answer, the second in a generated reference): the upstream's, as the `Date` headers of its
 * answers show it, falling back to the host's before any answer. The reconciliation holds these
 * times against the upstream's `createdAt`s and the sync's read times, which are on the upstream's
 * clock: on a host an hour or more off, an order stamped on the host's clock was
 * ORDER_NOT_REFLECTED seconds after it was placed, and purchases made before a FREEZE counted as
 * ACTIVITY_ON_INACTIVE_CARD.
 *
 * At the earliest its headers allow ({@link CardIssuingClient.upstreamEarliest}), not their
 * middle: a stamp taken before the request leaves is then not after the upstream took the order.
 * Stamped at the middle, up to half a second late on a host whose clock disagrees (more after a
 * slow answer), an UNFREEZE came after the first purchases its card took once ACTIVE again, and
 * each was ACTIVITY_ON_INACTIVE_CARD (3 of 20 in a soak).
 */
export function orderClock(api: Pick<CardIssuingClient, 'upstreamEarliest'>): () => Date {
  return () => new Date(api.upstreamEarliest() ?? Date.now());
}

/**
 * Make sure the upstream's clock is known before an order is journaled: when no answer has come
 * yet, ask for the merchant balance (one cheap read). Should that fail (no answer within
 * {@link ASK_MS}, the upstream down), the order goes on, on the host's clock, and meets the
 * failure itself, journaled as usual (the desk stamps it again once its answer shows the
 * upstream's clock); only the caller's own stop is raised.
 */
export async function learnUpstreamClock(
  api: Pick<CardIssuingClient, 'upstreamNow' | 'getMerchantBalance'>,
  signal: AbortSignal,
): Promise<void> {
  if (api.upstreamNow() !== undefined) return;
  try {
    await api.getMerchantBalance({
      signal: AbortSignal.any([signal, AbortSignal.timeout(ASK_MS)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
  }
}
