import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderOutcome } from '../../src/journal/order-desk.js';
import { formatMinor } from '../../src/money/decimal.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { transactionEffect } from '../../src/sandbox/ledger/transaction-effect.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { submitThroughDesk } from './support/desk-orders.js';
import { checkWorld } from './support/recon-world.js';

const DAY = 86_400_000;

/**
 * A debit that posts late was authorised when it was created: the card network already holds
 * it against the card (a purchase beyond what is left is declined). A withdrawal of the balance
 * as posted would take that money too, and the card would go below zero once the debit posts:
 * a NEGATIVE_BALANCE in a world where nothing was planted. The sandbox refuses such a
 * withdrawal, as it declines such a purchase.
 */
describe('a withdrawal of the posted balance of a card with debits still to post', () => {
  let w: SyncWorld;
  let cardId: string;
  let withdrawal: OrderOutcome;
  let results: CheckResults;
  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'withdrawal-late-posting',
      merchants: 1,
      currencies: ['USD'],
      world: { cards: 30, transactions: 300, days: 3, anomaliesPerCode: 0, lateShare: 1 },
    });
    const { store } = w.t.sandbox.context;
    const unposted = (id: string) =>
      store.transactions
        .unpostedOf(id)
        .reduce(
          (sum, t) => sum + transactionEffect(t.type, t.status, t.amountMinor, t.feeMinor),
          0,
        );
    const card = store.db
      .prepare(
        "SELECT card_id AS cardId, balance_minor AS balance FROM cards WHERE status = 'ACTIVE'",
      )
      .all()
      .map((c) => c as { cardId: string; balance: number })
      .find((c) => c.balance > 0 && unposted(c.cardId) < 0);
    if (!card) throw new Error('the world has no ACTIVE card with a debit still to post');
    cardId = card.cardId;
    expect(card.balance + unposted(cardId)).toBeLessThan(card.balance);
    withdrawal = await submitThroughDesk(w, {
      kind: 'WITHDRAW',
      cardId,
      amount: formatMinor(card.balance, 2),
    });
    const processed = await w.t.control.post('/_control/orders/process', {});
    expect(processed.status, processed.text).toBe(200);
    // Every late posting is visible two days on.
    const advanced = await w.t.control.post('/_control/clock', { advanceMs: 2 * DAY + 60_000 });
    expect(advanced.status, advanced.text).toBe(200);
    expect((await w.sync()).outcome).toBe('done');
    results = await checkWorld(w);
  });
  afterAll(async () => w?.close());

  it('is refused: the money is held for the debits authorised before it', () => {
    expect([withdrawal.state, withdrawal.errorCode]).toEqual([
      'REJECTED',
      'INSUFFICIENT_CARD_BALANCE',
    ]);
    expect(w.t.sandbox.context.store.cards.get(cardId)?.balanceMinor).toBeGreaterThanOrEqual(0);
  });

  it('leaves a world in which nothing was planted without a finding', () => {
    expect(results.findings.map((f) => `${f.check} ${f.cardId} ${f.detail}`)).toEqual([]);
  });
});
