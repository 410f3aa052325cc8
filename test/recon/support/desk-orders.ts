import { expect } from 'vitest';
import { CardIssuingClient } from '../../../src/api/index.js';
import type { CardOrder } from '../../../src/journal/card-order.js';
import {
  OrderDesk,
  type OrderOutcome,
  type SubmitOptions,
} from '../../../src/journal/order-desk.js';
import { minorOf } from '../../support/decimal-text.js';
import { type SyncWorld, startSyncWorld } from '../../support/sync-harness.js';

/**
 * Submit `order` for the first merchant of `w` through cardsync's own order desk (journaled in
 * the world's mirror, stamped by the service clock), as `cardsync cards ...` does; with
 * `options.merchantOrderNo` of a row left SUBMITTED, its resend.
 */
export async function submitThroughDesk(
  w: SyncWorld,
  order: CardOrder,
  options: SubmitOptions = {},
): Promise<OrderOutcome> {
  const merchant = w.t.sandbox.merchants[0] as (typeof w.t.sandbox.merchants)[number];
  const mirror = w.openMirror();
  const client = new CardIssuingClient({
    baseUrl: w.t.sandbox.baseUrl,
    apiKey: merchant.apiKey,
    ca: w.t.sandbox.caPem,
  });
  try {
    const desk = new OrderDesk({
      db: mirror.db,
      api: client,
      merchantId: merchant.merchantId,
      currency: merchant.currency,
      clock: () => new Date(w.t.sandbox.context.clock.now()),
    });
    return await desk.submit(order, options);
  } finally {
    await client.close();
    await mirror.close();
  }
}

/** POST `body` to the sandbox's control route `path`, expecting success; its body. */
export async function control(w: SyncWorld, path: string, body: unknown) {
  const answer = await w.t.control.post(path, body);
  expect(answer.status, answer.text).toBeLessThan(300);
  return answer.body;
}

/**
 * Have the service fail the order pending on `cardId` (reference-model section 3): the card is
 * blocked while it is processed, then unblocked (ACTIVE) again.
 */
export async function failPendingOrder(w: SyncWorld, cardId: string): Promise<void> {
  await control(w, `/_control/cards/${cardId}/status`, { status: 'BLOCKED' });
  const processed = await control(w, '/_control/orders/process', {});
  expect(processed.processed.map((p: { outcome: string }) => p.outcome)).toEqual(['failure']);
  await control(w, `/_control/cards/${cardId}/status`, { status: 'ACTIVE' });
}

/** A small world of one USD merchant, nothing planted, for tests of its orders: seeded `seed`. */
export function startOrderWorld(seed: string): Promise<SyncWorld> {
  return startSyncWorld({
    seed,
    merchants: 1,
    currencies: ['USD'],
    world: { cards: 20, transactions: 120, days: 5, anomaliesPerCode: 0 },
  });
}

/**
 * The ids of the first `count` ACTIVE cards of the world's merchant, in the order the upstream
 * lists them; with `aboveMinor`, only those holding more than that many cents.
 * @throws when the world has fewer.
 */
export async function activeCards(
  w: SyncWorld,
  count: number,
  aboveMinor?: bigint,
): Promise<string[]> {
  const api = w.t.merchants[0] as (typeof w.t.merchants)[number];
  const cards = (await api.get('/cards', { query: { limit: 100 } })).body.data as {
    cardId: string;
    status: string;
    balance: string;
  }[];
  const active = cards
    .filter((c) => c.status === 'ACTIVE')
    .filter((c) => aboveMinor === undefined || minorOf(c.balance, 2) > aboveMinor);
  if (active.length < count) throw new Error(`the world has fewer than ${count} such cards`);
  return active.slice(0, count).map((c) => c.cardId);
}
