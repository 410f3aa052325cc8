import { describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/recon/finding-identity.js';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { nestedLoopsOf, perRowReadsOf, plansDuring } from './support/query-plans.js';
import { coverageOf, lines, runOn } from './support/run-one.js';
import {
  DAY,
  HISTORY_AT,
  HOUR,
  MINUTE,
  openLedger,
  READ_AT,
  shift,
} from './support/test-ledger.js';

const temp = useTempMirrors();
const DAY2 = shift(HISTORY_AT, 2 * DAY);

describe('DUPLICATE_TRANSACTION', () => {
  const CODE = 'DUPLICATE_TRANSACTION';

  it('reports every member of a group but the first (earliest, then smallest id)', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const first = card.activity({ amount: '7.00', createdAt: DAY2, transactionId: 'txn_b' });
    const tie = card.activity({
      amount: '7.00',
      createdAt: DAY2,
      tradeNo: first.tradeNo,
      transactionId: 'txn_a',
    });
    const later = card.activity({
      amount: '7.00',
      createdAt: shift(DAY2, 1_000),
      tradeNo: first.tradeNo,
    });
    // Not duplicates: declined, another amount, another type, another trade.
    card.activity({ status: 'DECLINED', amount: '7.00', createdAt: DAY2, tradeNo: first.tradeNo });
    card.activity({ amount: '7.01', createdAt: DAY2, tradeNo: first.tradeNo });
    card.activity({ type: 'REFUND', amount: '7.00', createdAt: DAY2, tradeNo: first.tradeNo });
    card.activity({ amount: '7.00', createdAt: DAY2 });
    card.write();
    const findings = runOn(l, [CODE]).findings;
    expect(findings.map((f) => [f.transactionId, f.tradeNo, f.cardId])).toEqual(
      expect.arrayContaining([
        [first.transactionId, first.tradeNo, card.cardId],
        [later.transactionId, first.tradeNo, card.cardId],
      ]),
    );
    expect(findings).toHaveLength(2);
    for (const f of findings) expect(f.detail).toContain(`repeats ${tie.transactionId}`);
  });

  it('leaves out amounts too precise to compare, and says so', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering());
    const a = card.activity({ amount: '1.005', createdAt: DAY2 });
    card.activity({ amount: '1.005', createdAt: DAY2, tradeNo: a.tradeNo });
    card.write();
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'transactions',
        reason: 'amount too precise for its currency (PRECISION_VIOLATION)',
        count: 2,
      },
    ]);
  });
  it('takes amounts in two currencies for two amounts, even with the same minor units', () => {
    // 10.00 USD and 1000 JPY are both 1000 minor units, and no repeat of one another (the JPY
    // row is a CURRENCY_MISMATCH of the USD card).
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const usd = card.activity({ amount: '10.00', createdAt: DAY2 });
    card.activity({ amount: '1000', currency: 'JPY', createdAt: DAY2, tradeNo: usd.tradeNo });
    card.activity({ amount: '10.00', currency: 'EUR', createdAt: DAY2, tradeNo: usd.tradeNo });
    card.write();
    expect(lines(runOn(l, [CODE]))).toEqual([]);
  });

  it("reads a card's transactions once, not once per trade with a repeat", () => {
    // A card of 80,000 transactions with 8,000 repeated trades took 197 s (20,000 with 2,000:
    // 7 s): each trade read all the card's transactions to find its own.
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const [, , , repeat] = card.activities(
      ['A', 'B', 'A', 'A', 'C'].map((tradeNo) => ({ tradeNo, amount: '1.00', createdAt: DAY2 })),
    );
    let results: ReturnType<typeof runOn> | undefined;
    const plans = plansDuring(l.db, () => {
      results = runOn(l, [CODE]);
    });
    expect(results?.findings).toHaveLength(2);
    expect(results?.findings.map((f) => f.transactionId)).toContain(repeat?.transactionId);
    // The one loop inside another: each card with a repeat (x), its transactions by card (u).
    expect(nestedLoopsOf(plans)).toEqual([
      'SCAN x > SEARCH u USING COVERING INDEX transactions_by_card (card_id=?)',
    ]);
  });
});

describe('OVER_REFUND', () => {
  const CODE = 'OVER_REFUND';

  it('sums refunds past 2^53 minor units exactly instead of failing the run', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const purchase = card.activity({ amount: '1.00', createdAt: DAY2 });
    for (const amount of ['90071992547409.91', '90071992547409.91'])
      card.activity({ type: 'REFUND', amount, tradeNo: purchase.tradeNo, createdAt: DAY2 });
    card.write();
    const [finding] = runOn(l, [CODE]).findings;
    expect(finding).toMatchObject({
      expected: '1.00',
      actual: '180143985094819.82',
      delta: '180143985094818.82',
    });
  });

  it("sums refunds past SQLite's integer range (2^63) exactly instead of failing the run", () => {
    // 1,025 refunds of 2^53 - 1 cents each, every one a valid amount: SQLite's sum() throws
    // "integer overflow" past 2^63 - 1, which failed every check of the reconciliation.
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const purchase = card.activity({ amount: '1.00', createdAt: DAY2 });
    card.activities(
      Array.from({ length: 1025 }, () => ({
        type: 'REFUND' as const,
        amount: '90071992547409.91',
        tradeNo: purchase.tradeNo,
        createdAt: DAY2,
      })),
    );
    const other = l.issue(l.offering(), { amount: '500.00' });
    const small = other.activity({ amount: '5.00', createdAt: DAY2 });
    other.activity({ type: 'REFUND', amount: '6.00', tradeNo: small.tradeNo, createdAt: DAY2 });
    card.write({ balance: '0.00' });
    other.write();
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.tradeNo, f.expected, f.actual, f.delta])).toEqual(
      expect.arrayContaining([
        [purchase.tradeNo, '1.00', '92323792361095157.75', '92323792361095156.75'],
        [small.tradeNo, '5.00', '6.00', '1.00'],
      ]),
    );
    expect(results.findings).toHaveLength(2);
    expect(coverageOf(results, CODE)).toMatchObject({
      examined: { transactions: 1026 },
      skipped: [],
    });
  });

  it('sums refunds and reversals split over several rows against the purchases', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const exact = card.activity({ amount: '30.00', createdAt: DAY2 });
    for (const amount of ['10.00', '15.00'])
      card.activity({
        type: 'REFUND',
        amount,
        tradeNo: exact.tradeNo,
        createdAt: shift(DAY2, HOUR),
      });
    card.activity({
      type: 'REVERSAL',
      amount: '5.00',
      tradeNo: exact.tradeNo,
      createdAt: shift(DAY2, HOUR),
    });
    const over = card.activity({ amount: '30.00', createdAt: DAY2 });
    for (const amount of ['10.00', '15.00', '5.01'])
      card.activity({
        type: 'REFUND',
        amount,
        tradeNo: over.tradeNo,
        createdAt: shift(DAY2, HOUR),
      });
    // A declined refund returns nothing; a declined purchase bought nothing.
    const declined = card.activity({ amount: '20.00', createdAt: DAY2 });
    card.activity({
      status: 'DECLINED',
      amount: '20.00',
      tradeNo: declined.tradeNo,
      createdAt: DAY2,
    });
    card.activity({
      type: 'REFUND',
      status: 'DECLINED',
      amount: '20.00',
      tradeNo: declined.tradeNo,
      createdAt: shift(DAY2, HOUR),
    });
    card.activity({ type: 'REFUND', amount: '20.00', tradeNo: declined.tradeNo, createdAt: DAY2 });
    const ghost = card.activity({ type: 'REFUND', amount: '1.00', createdAt: DAY2 });
    card.write();
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.tradeNo, f.expected, f.actual, f.delta])).toEqual(
      expect.arrayContaining([
        [over.tradeNo, '30.00', '30.01', '0.01'],
        [ghost.tradeNo, '0.00', '1.00', '1.00'],
      ]),
    );
    expect(results.findings).toHaveLength(2);
    expect(coverageOf(results, CODE).examined).toEqual({ transactions: 8 });
  });

  it('leaves out a trade whose purchases and refunds are in more than one currency, and says so', () => {
    // 10.00 USD bought, 1500 JPY refunded: 1500 minor units are no more than 1000 of another
    // currency. Nor is 10.00 USD refunded of a 10.000 KWD purchase any less.
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const usd = card.activity({ amount: '10.00', createdAt: DAY2 });
    card.activity({
      type: 'REFUND',
      amount: '1500',
      currency: 'JPY',
      tradeNo: usd.tradeNo,
      createdAt: shift(DAY2, HOUR),
    });
    const kwd = card.activity({ amount: '10.000', currency: 'KWD', createdAt: DAY2 });
    card.activity({ type: 'REFUND', amount: '10.00', tradeNo: kwd.tradeNo, createdAt: DAY2 });
    card.write();
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'transactions',
        reason:
          'a purchase, refund or reversal of the trade is in another currency than the others (CURRENCY_MISMATCH)',
        count: 2,
      },
    ]);
  });

  it('lets refunds exceed the purchases by the tolerance, not by one minor unit more', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const within = card.activity({ amount: '10.00', createdAt: DAY2 });
    card.activity({ type: 'REFUND', amount: '10.05', tradeNo: within.tradeNo, createdAt: DAY2 });
    const beyond = card.activity({ amount: '10.00', createdAt: DAY2 });
    card.activity({ type: 'REVERSAL', amount: '10.06', tradeNo: beyond.tradeNo, createdAt: DAY2 });
    card.write();
    const settings = { tolerances: { OVER_REFUND: 5 } };
    expect(runOn(l, [CODE], { settings }).findings.map((f) => f.tradeNo)).toEqual([beyond.tradeNo]);
    expect(runOn(l, [CODE]).findings).toHaveLength(2);
  });

  it('works in a 3-decimal currency', () => {
    const l = openLedger(temp, { currency: 'BHD' });
    const card = l.issue(l.offering(), { amount: '500.000' });
    const p = card.activity({ amount: '1.000', createdAt: DAY2 });
    card.activity({ type: 'REFUND', amount: '1.001', tradeNo: p.tradeNo, createdAt: DAY2 });
    card.write();
    expect(runOn(l, [CODE]).findings.map((f) => f.delta)).toEqual(['0.001']);
  });
});

describe('ACTIVITY_ON_INACTIVE_CARD', () => {
  const CODE = 'ACTIVITY_ON_INACTIVE_CARD';

  it('reports purchases and verifications more than grace after a FREEZE (before an UNFREEZE) or a CANCEL', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const card = l.issue(offering, { amount: '500.00' });
    const frozenAt = shift(HISTORY_AT, DAY);
    const freeze = card.switchTo('FREEZE', frozenAt);
    card.activity({ amount: '1.00', createdAt: shift(frozenAt, HOUR) }); // within grace
    const during = card.activity({ amount: '1.00', createdAt: shift(frozenAt, HOUR + 1) });
    const check = card.activity({
      type: 'VERIFICATION',
      amount: '0.00',
      createdAt: shift(frozenAt, 2 * HOUR),
    });
    card.activity({ status: 'DECLINED', amount: '1.00', createdAt: shift(frozenAt, 2 * HOUR) });
    card.activity({ type: 'REFUND', amount: '1.00', createdAt: shift(frozenAt, 2 * HOUR) });
    card.switchTo('UNFREEZE', shift(frozenAt, 3 * HOUR));
    card.activity({ amount: '1.00', createdAt: shift(frozenAt, 5 * HOUR) }); // active again
    const cancelledAt = shift(frozenAt, DAY);
    card.switchTo('CANCEL', cancelledAt);
    const afterCancel = card.activity({ amount: '1.00', createdAt: shift(cancelledAt, 2 * HOUR) });
    card.write();
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.transactionId, f.orderNo])).toEqual(
      expect.arrayContaining([
        [during.transactionId, freeze.orderNo],
        [check.transactionId, freeze.orderNo],
        [afterCancel.transactionId, expect.any(String)],
      ]),
    );
    expect(results.findings).toHaveLength(3);
    expect(coverageOf(results, CODE).examined).toEqual({ transactions: 5 });
  });

  it('takes a FREEZE followed by another accepted FREEZE as not holding, unless a read showed the card FROZEN between', () => {
    // The upstream takes a FREEZE from an ACTIVE card only: when a second was accepted, the
    // first no longer held the card (it failed), unless a read saw the card FROZEN in between
    // (it held, and the service unfroze the card).
    const l = openLedger(temp);
    const offering = l.offering();
    const at = shift(HISTORY_AT, DAY);
    const failed = l.issue(offering, { amount: '500.00' });
    failed.switchTo('FREEZE', at, { reflected: false });
    failed.activity({ amount: '1.00', createdAt: shift(at, 2 * HOUR) });
    failed.switchTo('FREEZE', shift(at, 4 * HOUR));
    failed.write();
    const held = l.issue(offering, { amount: '500.00' });
    const first = held.switchTo('FREEZE', at);
    held.write({}, shift(at, HOUR + MINUTE));
    const during = held.activity({ amount: '1.00', createdAt: shift(at, 2 * HOUR) });
    held.status = 'ACTIVE';
    held.write({}, shift(at, 3 * HOUR));
    held.switchTo('FREEZE', shift(at, 4 * HOUR));
    held.write();
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.transactionId, f.orderNo])).toEqual([
      [during.transactionId, first.orderNo],
    ]);
  });

  it("judges a card's transactions against its FREEZE, UNFREEZE and CANCEL orders in one pass", () => {
    // A card frozen and unfrozen 2,000 times took 8 s for 100 purchases (16 times as long for
    // twice the orders): each purchase sought its stop among all the card's FREEZE and CANCEL
    // orders, and for each of those, an UNFREEZE among all the card's UNFREEZE orders.
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const frozenAt = shift(HISTORY_AT, DAY);
    card.switchTo('FREEZE', frozenAt);
    card.switchTo('UNFREEZE', shift(frozenAt, HOUR));
    const freeze = card.switchTo('FREEZE', shift(frozenAt, 2 * HOUR));
    card.activity({ amount: '1.00', createdAt: shift(frozenAt, 2 * HOUR - MINUTE) });
    const during = card.activity({ amount: '1.00', createdAt: shift(frozenAt, 4 * HOUR) });
    card.write();
    let results: ReturnType<typeof runOn> | undefined;
    const plans = plansDuring(l.db, () => {
      results = runOn(l, [CODE]);
    });
    expect(results?.findings.map((f) => [f.transactionId, f.orderNo])).toEqual([
      [during.transactionId, freeze.orderNo],
    ]);
    expect(perRowReadsOf(plans)).toEqual([]);
  });

  it('reports each of 200,000 purchases on a cancelled card, instead of failing the run', () => {
    // A card the upstream kept charging after its CANCEL: the run died with 'Maximum call stack
    // size exceeded', every other check's findings lost with it.
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const cancelledAt = shift(HISTORY_AT, DAY);
    card.switchTo('CANCEL', cancelledAt);
    card.write();
    // Written in one statement: through the writer, 200,000 rows take half a minute.
    const purchase = card.activity({ amount: '1.00', createdAt: shift(cancelledAt, 2 * HOUR) });
    l.db
      .prepare(
        `WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 199999)
         INSERT INTO transactions
         SELECT t.transaction_id || '-' || n.i, t.merchant_id, t.card_id, t.trade_no || '-' || n.i,
                t.type, t.status, t.amount, t.amount_minor, t.fee, t.fee_minor, t.currency,
                t.merchant_name, t.created_at, t.first_seen_at, t.updated_at, t.updated_run_id
         FROM transactions t CROSS JOIN n WHERE t.transaction_id = ?`,
      )
      .run(purchase.transactionId);
    const results = runOn(l, [CODE]);
    expect(results.findings).toHaveLength(200_000);
  });
});

describe('ACTIVITY_ON_INACTIVE_CARD, the end of a freeze', () => {
  const CODE = 'ACTIVITY_ON_INACTIVE_CARD';

  it('takes an UNFREEZE journaled without orderNo as one that may have restarted the card, not a REJECTED one', () => {
    const l = openLedger(temp);
    const frozenAt = shift(HISTORY_AT, DAY);
    const unlinked = l.issue(l.offering(), { amount: '500.00' });
    unlinked.switchTo('FREEZE', frozenAt);
    l.order({
      kind: 'UNFREEZE',
      cardId: unlinked.cardId,
      submittedAt: shift(frozenAt, 3 * HOUR),
      orderNo: null,
    });
    unlinked.status = 'ACTIVE';
    unlinked.activity({ amount: '5.00', createdAt: shift(frozenAt, 5 * HOUR) });
    unlinked.write();
    const refused = l.issue(l.offering(), { amount: '500.00' });
    refused.switchTo('FREEZE', frozenAt);
    l.order({
      kind: 'UNFREEZE',
      cardId: refused.cardId,
      submittedAt: shift(frozenAt, 3 * HOUR),
      orderNo: null,
      state: 'REJECTED',
    });
    const during = refused.activity({ amount: '5.00', createdAt: shift(frozenAt, 5 * HOUR) });
    refused.write();
    expect(runOn(l, [CODE]).findings.map((f) => f.transactionId)).toEqual([during.transactionId]);
  });

  it('takes a FREEZE and an UNFREEZE submitted in the same instant in journal order, as ORDER_NOT_REFLECTED does', () => {
    const l = openLedger(temp);
    const at = shift(HISTORY_AT, DAY);
    // Frozen, then unfrozen within the second a journal file gives times to: active after both.
    const thawed = l.issue(l.offering(), { amount: '500.00' });
    thawed.switchTo('FREEZE', at);
    thawed.switchTo('UNFREEZE', at);
    thawed.activity({ amount: '5.00', createdAt: shift(at, 2 * HOUR) });
    thawed.write();
    // The other way round: frozen last, so a purchase two hours on is activity on a frozen card.
    const frozen = l.issue(l.offering(), { amount: '500.00' });
    frozen.switchTo('UNFREEZE', at);
    frozen.switchTo('FREEZE', at);
    const during = frozen.activity({ amount: '5.00', createdAt: shift(at, 2 * HOUR) });
    frozen.write();
    expect(runOn(l, [CODE]).findings.map((f) => f.transactionId)).toEqual([during.transactionId]);
  });

  it('reports activity only when created before the next UNFREEZE, not in its instant', () => {
    // Section 6: "created more than grace after an accepted FREEZE (and before the next
    // UNFREEZE)": a purchase in the UNFREEZE's own millisecond is not before it.
    const l = openLedger(temp);
    const frozenAt = shift(HISTORY_AT, DAY);
    const thawedAt = shift(frozenAt, 3 * HOUR);
    const card = l.issue(l.offering(), { amount: '500.00' });
    card.switchTo('FREEZE', frozenAt);
    const before = card.activity({ amount: '5.00', createdAt: shift(thawedAt, -1) });
    card.switchTo('UNFREEZE', thawedAt);
    card.activity({ amount: '5.00', createdAt: thawedAt });
    card.write();
    expect(runOn(l, [CODE]).findings.map((f) => f.transactionId)).toEqual([before.transactionId]);
  });
});

describe('ACTIVITY_ON_INACTIVE_CARD, a stop the upstream accepted without an orderNo', () => {
  const CODE = 'ACTIVITY_ON_INACTIVE_CARD';

  it('takes a FREEZE or CANCEL journaled ACCEPTED without orderNo (a 2xx without a body) as accepted', () => {
    // The interface shows no response body for freeze and cancel, and any 2xx is success: the
    // order desk journals such an answer ACCEPTED with no orderNo. The order was accepted all the
    // same, and stopped the card; only one whose acceptance is unknown is left out.
    const l = openLedger(temp);
    const at = shift(HISTORY_AT, DAY);
    const frozen = l.issue(l.offering(), { amount: '500.00' });
    const freeze = l.order({
      kind: 'FREEZE',
      cardId: frozen.cardId,
      submittedAt: at,
      orderNo: null,
      state: 'ACCEPTED',
    });
    frozen.status = 'FROZEN';
    const whileFrozen = frozen.activity({ amount: '5.00', createdAt: shift(at, 2 * HOUR) });
    frozen.write();
    const cancelled = l.issue(l.offering(), { amount: '500.00' });
    l.order({
      kind: 'CANCEL',
      cardId: cancelled.cardId,
      submittedAt: at,
      orderNo: null,
      state: 'ACCEPTED',
    });
    const afterCancel = cancelled.activity({ amount: '5.00', createdAt: shift(at, 2 * HOUR) });
    cancelled.write();
    // Imported without orderNo, or still SUBMITTED: whether the upstream took it is unknown.
    for (const state of ['IMPORTED', 'SUBMITTED'] as const) {
      const unknown = l.issue(l.offering(), { amount: '500.00' });
      l.order({ kind: 'FREEZE', cardId: unknown.cardId, submittedAt: at, orderNo: null, state });
      unknown.activity({ amount: '5.00', createdAt: shift(at, 2 * HOUR) });
      unknown.write();
    }
    const findings = runOn(l, [CODE]).findings;
    expect(findings.map((f) => [f.transactionId, f.merchantOrderNo, f.orderNo])).toEqual(
      expect.arrayContaining([
        [whileFrozen.transactionId, freeze.merchantOrderNo, null],
        [afterCancel.transactionId, expect.any(String), null],
      ]),
    );
    expect(findings).toHaveLength(2);
  });

  it('leaves undecided, and open, a transaction judged by an order still awaiting its answer, and reports one judged alike either way', () => {
    const l = openLedger(temp);
    const at = shift(HISTORY_AT, DAY);
    const awaiting = (kind: 'FREEZE' | 'UNFREEZE' | 'CANCEL', cardId: string, hours: number) =>
      l.order({
        kind,
        cardId,
        submittedAt: shift(at, hours * HOUR),
        orderNo: null,
        state: 'SUBMITTED',
      });
    // Frozen; an UNFREEZE sent since lost its answer: the purchase after it turns on it.
    const thawing = l.issue(l.offering(), { amount: '500.00' });
    thawing.switchTo('FREEZE', at);
    awaiting('UNFREEZE', thawing.cardId, 2);
    const afterThaw = thawing.activity({ amount: '5.00', createdAt: shift(at, 4 * HOUR) });
    // Before that UNFREEZE was sent, the card was frozen either way.
    const beforeThaw = thawing.activity({ amount: '6.00', createdAt: shift(at, HOUR + MINUTE) });
    thawing.write();
    // A FREEZE and a CANCEL that lost their answers: did they stop the card?
    const stopping = (['FREEZE', 'CANCEL'] as const).map((kind) => {
      const card = l.issue(l.offering(), { amount: '500.00' });
      awaiting(kind, card.cardId, 0);
      const purchase = card.activity({ amount: '5.00', createdAt: shift(at, 2 * HOUR) });
      card.write();
      return purchase.transactionId;
    });
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => f.transactionId)).toEqual([beforeThaw.transactionId]);
    const reason =
      'a FREEZE, UNFREEZE or CANCEL of the card that decides it awaits its answer (no orderNo yet)';
    expect(coverageOf(results, CODE).skipped).toEqual([{ unit: 'transactions', reason, count: 3 }]);
    const undecided = results.undecided.find((u) => u.check === CODE)?.undecided;
    const open =
      undecided && 'ids' in undecided ? [...(undecided.ids.get('transactionId') ?? [])] : [];
    expect(open.sort()).toEqual([afterThaw.transactionId, ...stopping].sort());
  });
});

describe('STALE_PENDING', () => {
  const CODE = 'STALE_PENDING';
  const CUTOFF = READ_AT;

  it('reports a PENDING transaction created more than staleAfter before the cutoff', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00', at: shift(CUTOFF, -30 * DAY) });
    const stale = card.activity({
      status: 'PENDING',
      amount: '1.00',
      createdAt: shift(CUTOFF, -7 * DAY - 1),
    });
    card.activity({ status: 'PENDING', amount: '1.00', createdAt: shift(CUTOFF, -7 * DAY) });
    card.activity({ status: 'COMPLETED', amount: '1.00', createdAt: shift(CUTOFF, -20 * DAY) });
    card.write();
    expect(
      runOn(l, [CODE], { cutoff: CUTOFF }).findings.map((f) => [f.transactionId, f.severity]),
    ).toEqual([[stale.transactionId, 'warning']]);
    expect(
      lines(runOn(l, [CODE], { cutoff: CUTOFF, settings: { staleAfterMs: 8 * DAY } })),
    ).toEqual([]);
    expect(coverageOf(runOn(l, [CODE]), CODE).skipped).toEqual([
      { unit: 'transactions', reason: 'no synced range: cutoff unknown', count: 2 },
    ]);
  });
});

describe('ORPHAN_TRANSACTION', () => {
  const CODE = 'ORPHAN_TRANSACTION';

  it('reports a transaction on a card /cards/info does not know, and waits for one not asked', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering());
    card.write();
    const orphan = l.transaction({ cardId: 'card_ghost', amount: '4.50', createdAt: DAY2 });
    l.transaction({ cardId: 'card_unasked', amount: '4.50', createdAt: DAY2 });
    l.writers.merchants.recordMissingCard('card_ghost', 'not_found', {
      merchantId: l.merchantId,
      runId: l.runId,
      observedAt: READ_AT,
    });
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.transactionId, f.cardId])).toEqual([
      [orphan.transactionId, 'card_ghost'],
    ]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'transactions',
        reason: 'card not listed and not yet asked for (/cards/info)',
        count: 1,
      },
    ]);
  });
});

describe('CURRENCY_MISMATCH', () => {
  const CODE = 'CURRENCY_MISMATCH';

  it('reports a transaction in another currency than its card, and a card unlike its offering', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const euro = card.activity({ amount: '5.00', currency: 'EUR', createdAt: DAY2 });
    card.write();
    const odd = l.issue(l.offering({ currency: 'EUR', minLoadAmount: '10.00' }));
    odd.write();
    expect(
      runOn(l, [CODE]).findings.map((f) => [f.transactionId, f.cardId, f.expected, f.actual]),
    ).toEqual(
      expect.arrayContaining([
        [euro.transactionId, card.cardId, 'USD', 'EUR'],
        [null, odd.cardId, 'EUR', 'USD'],
      ]),
    );
  });
});

describe('NEGATIVE_BALANCE', () => {
  it('reports a card balance below zero', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '10.00' });
    card.activity({ amount: '9.00', createdAt: DAY2 });
    card.write();
    expect(card.balance).toBeLessThan(0n);
    expect(runOn(l, ['NEGATIVE_BALANCE']).findings.map((f) => [f.cardId, f.actual])).toEqual([
      [card.cardId, '-1.00'],
    ]);
  });
});

describe('NEGATIVE_BALANCE, a balance too precise to read', () => {
  it('leaves the card out of what it examined, and says why', () => {
    const l = openLedger(temp);
    l.issue(l.offering(), { amount: '10.00' }).write({ balance: '-1.005' });
    l.issue(l.offering(), { amount: '10.00' }).write();
    const results = runOn(l, ['NEGATIVE_BALANCE']);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, 'NEGATIVE_BALANCE')).toMatchObject({
      examined: { cards: 1 },
      skipped: [
        {
          unit: 'cards',
          reason: 'balance too precise for its currency (PRECISION_VIOLATION)',
          count: 1,
        },
      ],
    });
  });
});

describe('PRECISION_VIOLATION', () => {
  const CODE = 'PRECISION_VIOLATION';

  it('reports amounts, fees and balances too precise for their currency, which other checks leave out', () => {
    const l = openLedger(temp, { currency: 'JPY' });
    const card = l.issue(l.offering(), { amount: '1000' });
    const amount = card.activity({ amount: '100.5', createdAt: DAY2 });
    const fee = card.activity({ amount: '100', fee: '0.1', createdAt: DAY2 });
    card.activity({ amount: '100', createdAt: DAY2, transactionId: 'txn_fine' });
    card.write();
    const loose = l.issue(l.offering());
    loose.write({ balance: '10.5' });
    const results = runOn(l);
    expect(
      results.findings
        .filter((f) => f.check === CODE)
        .map((f) => [f.transactionId, f.cardId, f.actual]),
    ).toEqual(
      expect.arrayContaining([
        [amount.transactionId, card.cardId, '100.5'],
        [fee.transactionId, card.cardId, '0.1'],
        [null, loose.cardId, '10.5'],
      ]),
    );
    expect(lines(results).filter((line) => !line.startsWith(CODE))).toEqual([]);
    expect(coverageOf(results, CODE).examined).toEqual({
      transactions: 5,
      cards: 2,
      orders: 2,
      offerings: 2,
    });
    expect(coverageOf(results, 'CARD_BALANCE_MISMATCH').skipped.map((s) => s.count)).toEqual([
      1, 1,
    ]);
  });

  it("reports a journal order's amount and a merchant balance too precise, each once", () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00' });
    const deposit = l.order({
      kind: 'DEPOSIT',
      cardId: card.cardId,
      amount: '10.005',
      submittedAt: DAY2,
    });
    l.order({ kind: 'TOPUP', amount: '5.001', submittedAt: DAY2, orderNo: null });
    card.write();
    l.snapshot('1000.005', shift(DAY2, HOUR));
    l.snapshot('1000.00', shift(DAY2, 2 * HOUR));
    const results = runOn(l, [CODE]);
    const byActual = (a: unknown[], b: unknown[]) => String(a[2]).localeCompare(String(b[2]));
    expect(
      results.findings
        .map((f) => [f.merchantOrderNo, f.snapshotAt, f.actual, f.detail])
        .sort(byActual),
    ).toEqual([
      [
        deposit.merchantOrderNo,
        null,
        '10.005',
        'journal DEPOSIT amount 10.005 has more fractional digits than USD allows',
      ],
      [
        null,
        shift(DAY2, HOUR),
        '1000.005',
        `merchant balance read at ${shift(DAY2, HOUR)} 1000.005 has more fractional digits than USD allows`,
      ],
      [
        expect.any(String),
        null,
        '5.001',
        'journal TOPUP amount 5.001 has more fractional digits than USD allows',
      ],
    ]);
    expect(new Set(results.findings.map((f) => f.fingerprint)).size).toBe(3);
  });

  it("identifies a journal order's amount by its merchantOrderNo, apart from its card's balance and the card's other orders", () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00' });
    const first = l.order({
      kind: 'DEPOSIT',
      cardId: card.cardId,
      amount: '10.005',
      submittedAt: DAY2,
    });
    const second = l.order({
      kind: 'WITHDRAW',
      cardId: card.cardId,
      amount: '20.005',
      submittedAt: DAY2,
    });
    card.write({ balance: '98.001' });
    const findings = runOn(l, [CODE]).findings;
    expect(findings.map((f) => [f.merchantOrderNo, f.cardId, f.actual])).toEqual([
      [null, card.cardId, '98.001'],
      [first.merchantOrderNo, card.cardId, '10.005'],
      [second.merchantOrderNo, card.cardId, '20.005'],
    ]);
    // Three violations, three findings: none hides another under the card's fingerprint.
    expect(new Set(findings.map((f) => f.fingerprint)).size).toBe(3);
    const byOrder = (merchantOrderNo: string) =>
      findings.find((f) => f.merchantOrderNo === merchantOrderNo)?.fingerprint;
    expect(byOrder(first.merchantOrderNo)).toBe(
      fingerprintOf(CODE, l.merchantId, {
        cardId: null,
        transactionId: null,
        orderNo: null,
        merchantOrderNo: first.merchantOrderNo,
        tradeNo: null,
        snapshotAt: null,
        offeringId: null,
      }),
    );
  });

  it("reports an offering whose current terms are too precise, once, naming each term; the offering's fixed terms resolve it", () => {
    const l = openLedger(temp);
    const loose = l.offering({ maxLoadAmount: '5000.001', issuanceFee: '2.005' });
    l.offering({ id: 'off_fine' });
    const results = runOn(l, [CODE]);
    expect(
      results.findings.map((f) => [f.offeringId, f.cardId, f.currency, f.actual, f.detail]),
    ).toEqual([
      [
        loose.id,
        null,
        'USD',
        '5000.001',
        `offering ${loose.id} (terms version 1): maxLoadAmount 5000.001 has more fractional digits than USD allows; issuanceFee 2.005 has more fractional digits than USD allows`,
      ],
    ]);
    expect(coverageOf(results, CODE).examined).toMatchObject({ offerings: 2 });
    const [finding] = results.findings;
    // Its identity is the offering: another offering's finding has another fingerprint.
    l.offering({ id: 'off_loose_too', issuanceFee: '2.005' });
    const both = runOn(l, [CODE]).findings;
    expect(both.map((f) => f.offeringId).sort()).toEqual([loose.id, 'off_loose_too'].sort());
    expect(new Set(both.map((f) => f.fingerprint)).size).toBe(2);
    expect(both.find((f) => f.offeringId === loose.id)?.fingerprint).toBe(finding?.fingerprint);
    // The next read of the offering shows whole cents: a new version, and no finding for it.
    l.offering({ id: loose.id });
    expect(runOn(l, [CODE]).findings.map((f) => f.offeringId)).toEqual(['off_loose_too']);
  });

  it('flags a currency whose exponent is unknown', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering());
    card.activity({ amount: '5.00', currency: 'XXX', createdAt: DAY2 }, shift(DAY2, MINUTE));
    card.write();
    expect(runOn(l, [CODE]).findings.map((f) => f.detail)).toEqual([
      'amount 5.00 is in XXX, a currency whose exponent is unknown; fee 0.00 is in XXX, a currency whose exponent is unknown',
    ]);
  });
});

describe('the amount a finding shows (docs/reconciliation.md, "A finding")', () => {
  it("writes it in the currency's exponent however the upstream wrote it, as the other checks do", () => {
    // The interface promises decimal text, not a number of digits: '7.5' and '0012.5' are USD.
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00', at: shift(READ_AT, -30 * DAY) });
    const first = card.activity({ amount: '7.50', createdAt: shift(READ_AT, -20 * DAY) });
    const repeat = card.activity({
      amount: '7.5',
      tradeNo: first.tradeNo,
      createdAt: shift(READ_AT, -19 * DAY),
    });
    const stale = card.activity({
      status: 'PENDING',
      amount: '0012.5',
      createdAt: shift(READ_AT, -10 * DAY),
    });
    const cancelledAt = shift(READ_AT, -5 * DAY);
    card.switchTo('CANCEL', cancelledAt);
    const late = card.activity({ amount: '3', createdAt: shift(cancelledAt, 2 * HOUR) });
    card.write({ balance: '0.00' });
    const below = l.issue(l.offering(), { amount: '100.00', at: shift(READ_AT, -30 * DAY) });
    below.write({ balance: '-0.5' });
    const results = runOn(
      l,
      ['DUPLICATE_TRANSACTION', 'STALE_PENDING', 'ACTIVITY_ON_INACTIVE_CARD', 'NEGATIVE_BALANCE'],
      { cutoff: READ_AT },
    );
    expect(
      results.findings.map((f) => [f.check, f.transactionId ?? f.cardId, f.actual]).sort(),
    ).toEqual(
      [
        ['ACTIVITY_ON_INACTIVE_CARD', late.transactionId, '3.00'],
        ['DUPLICATE_TRANSACTION', repeat.transactionId, '7.50'],
        ['NEGATIVE_BALANCE', below.cardId, '-0.50'],
        ['STALE_PENDING', stale.transactionId, '12.50'],
      ].sort(),
    );
  });
});
