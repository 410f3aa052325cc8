import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardIssuingClient } from '../../src/api/index.js';
import { OrderDesk } from '../../src/journal/order-desk.js';
import type { CheckResults } from '../../src/recon/run-checks.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';
import { checkWorld } from './support/recon-world.js';

const CODE = 'MERCHANT_BALANCE_MISMATCH';
const MINUTE = 60_000;

/** The MERCHANT_BALANCE_MISMATCH findings of `results`, as `snapshotAt delta`. */
function drifts(results: CheckResults): string[] {
  return results.findings.filter((f) => f.check === CODE).map((f) => `${f.snapshotAt} ${f.delta}`);
}

describe('cards cancelled while a purchase was PENDING, a refund PENDING and a purchase not yet posted', () => {
  let w: SyncWorld;
  let second: CheckResults;
  let third: CheckResults;
  let thirdSnapshot: string;

  const advance = async (advanceMs: number) =>
    expect((await w.t.control.post('/_control/clock', { advanceMs })).status).toBe(200);

  const post = async (cardId: string, body: object): Promise<Record<string, string>> => {
    const posted = await w.t.control.post(`/_control/cards/${cardId}/transactions`, body);
    expect(posted.status, posted.text).toBe(201);
    return posted.body.data;
  };

  const move = async (transactionId: string, status: string) => {
    const moved = await w.t.control.post(`/_control/transactions/${transactionId}/status`, {
      status,
    });
    expect(moved.status, moved.text).toBe(200);
  };

  /** Cancel the cards through the order desk (journaled as `cardsync cards cancel` does), processed. */
  const cancel = async (...cardIds: string[]) => {
    const merchant = w.t.sandbox.merchants[0]!;
    const api = new CardIssuingClient({
      baseUrl: w.t.sandbox.baseUrl,
      apiKey: merchant.apiKey,
      ca: w.t.sandbox.caPem,
    });
    const mirror = w.openMirror();
    try {
      const desk = new OrderDesk({ db: mirror.db, api, merchantId: merchant.merchantId });
      for (const cardId of cardIds)
        expect((await desk.submit({ kind: 'CANCEL', cardId })).state).toBe('ACCEPTED');
    } finally {
      await mirror.close();
      await api.close();
    }
    expect((await w.t.control.post('/_control/orders/process', {})).status).toBe(200);
  };

  beforeAll(async () => {
    w = await startSyncWorld({
      seed: 'recon-cancel-then-change',
      merchants: 1,
      world: { cards: 30, transactions: 200, days: 10, anomaliesPerCode: 0 },
    });
    const [a, b, c, d] = w.t.sandbox.context.store.db
      .prepare(
        "SELECT card_id FROM cards WHERE status = 'ACTIVE' AND balance_minor > 10000 LIMIT 4",
      )
      .pluck()
      .all() as string[];
    expect(d).toBeDefined();
    // Every order and change lies minutes from the snapshots (the world's last orders too): no
    // interval is skipped for an order near one.
    await advance(10 * MINUTE);
    expect((await w.sync()).outcome).toBe('done');
    await advance(10 * MINUTE);
    const held = await post(a!, { type: 'PURCHASE', amount: '12.34', status: 'PENDING' });
    const bought = await post(b!, { type: 'PURCHASE', amount: '20.00', status: 'COMPLETED' });
    const refund = await post(b!, {
      type: 'REFUND',
      amount: '5.00',
      status: 'PENDING',
      tradeNo: bought.tradeNo,
    });
    const now = Date.parse((await w.t.control.get('/_control/clock')).body.now as string);
    // Made now, posted in a minute: the cancellation before it returns the balance without it.
    await post(c!, {
      type: 'PURCHASE',
      amount: '7.00',
      status: 'PENDING',
      createdAt: new Date(now).toISOString(),
      visibleAt: new Date(now + MINUTE).toISOString(),
    });
    await cancel(a!, b!, c!);
    // After the cancellations, which returned each card's balance then: the hold expires, the
    // refund completes, the late purchase posts. A CANCELLED card keeps 0 through all three.
    await advance(5 * MINUTE);
    await move(held.transactionId!, 'DECLINED');
    await move(refund.transactionId!, 'COMPLETED');
    await advance(5 * MINUTE);
    expect((await w.sync()).outcome).toBe('done');
    second = await checkWorld(w);
    // The next day: a card cancelled with a PENDING purchase declined after it, and a movement
    // of the merchant balance no order explains.
    await advance(10 * MINUTE);
    const heldToo = await post(d!, { type: 'PURCHASE', amount: '4.00', status: 'PENDING' });
    await cancel(d!);
    await advance(5 * MINUTE);
    await move(heldToo.transactionId!, 'DECLINED');
    const planted = await w.t.control.post(
      `/_control/merchants/${w.t.sandbox.merchants[0]!.merchantId}/unjournaled-movement`,
      { amount: '3.21' },
    );
    expect(planted.status, planted.text).toBe(201);
    await advance(5 * MINUTE);
    expect((await w.sync()).outcome).toBe('done');
    third = await checkWorld(w);
    const mirror = w.openMirror();
    try {
      thirdSnapshot = mirror.db
        .prepare('SELECT max(observed_at) FROM merchant_balances')
        .pluck()
        .get() as string;
    } finally {
      await mirror.close();
    }
  });
  afterAll(async () => w?.close());

  it('is no MERCHANT_BALANCE_MISMATCH: the merchant got each balance as it stood at the CANCEL', () => {
    expect(second.findings.map((f) => `${f.check} ${f.cardId ?? ''} ${f.delta}`)).toEqual([]);
    const coverage = second.coverage.find((c) => c.check === CODE);
    expect(coverage?.skipped).toEqual([
      {
        unit: 'intervals',
        reason:
          'the difference is the effect of transactions of a card cancelled in between that posted or changed status after its CANCEL, when the card kept none of it',
        count: 1,
      },
    ]);
  });

  it('still reports a movement no order explains in an interval with such a cancellation', () => {
    // The 4.00 the ledger counts back to the card, the cancellation did not return: with the
    // 3.21 moved out, no account of the hold explains the change.
    expect(drifts(third)).toEqual([`${thirdSnapshot} -7.21`]);
  });
});
