import { describe, expect, it } from 'vitest';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { coverageOf, lines, runOn } from './support/run-one.js';
import {
  DAY,
  HISTORY_AT,
  HOUR,
  MINUTE,
  openLedger,
  shift,
  type TestLedger,
} from './support/test-ledger.js';

const temp = useTempMirrors();
const CODE = 'MERCHANT_BALANCE_MISMATCH';
const S1 = shift(HISTORY_AT, DAY);
const S2 = shift(S1, DAY);

/** Between S1 and S2: a top-up, an issue, a failed deposit, a withdrawal and a cancellation. */
function busyDay(l: TestLedger): void {
  l.order({ kind: 'TOPUP', amount: '500.00', submittedAt: shift(S1, HOUR), orderNo: null });
  const card = l.issue(l.offering(), { amount: '100.00', at: shift(S1, 2 * HOUR) });
  card.money('DEPOSIT', '50.00', shift(S1, 3 * HOUR), { outcome: 'DECLINED' });
  card.money('WITHDRAW', '10.00', shift(S1, 4 * HOUR));
  card.activity({ amount: '8.00', createdAt: shift(S1, 4.5 * HOUR) });
  card.switchTo('CANCEL', shift(S1, 5 * HOUR));
  card.write();
}

describe('MERCHANT_BALANCE_MISMATCH', () => {
  it("explains a day's change by the journal's flows (section 3)", () => {
    const l = openLedger(temp);
    busyDay(l);
    l.snapshot('1000.00', S1);
    // +500 - 100 - 50 + 50 + 10 + (100 - 2 - 10 - 8) returned by the cancellation
    l.snapshot('1490.00', S2);
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).examined).toEqual({ intervals: 1, orders: 5 });
  });

  it('does not judge an interval outside the synced range (an incomplete sync left a gap or stopped short)', () => {
    const l = openLedger(temp);
    busyDay(l);
    l.snapshot('1000.00', S1);
    l.snapshot('1477.66', S2);
    l.snapshot('1477.66', shift(S2, DAY));
    l.snapshot('1400.00', shift(S2, 2 * DAY));
    // Synced from after S1 (a window before it failed) up to a day after S2 (the next failed).
    l.synced(shift(S1, MINUTE), shift(S2, DAY + HOUR));
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped.map((s) => s.reason)).toEqual([
      'a snapshot taken after the last fully synced transaction (a sync that stopped part-way): an order outcome before it may not be mirrored: checked by the next run',
      'a snapshot taken before the synced range (a sync that stopped part-way left a gap after it): an order outcome after it may not be mirrored: checked by the next run',
    ]);
    expect(coverageOf(results, CODE).examined.intervals).toBe(1);
  });

  it('reports a change the journal does not explain, identified by the later snapshot', () => {
    const l = openLedger(temp);
    busyDay(l);
    l.snapshot('1000.00', S1);
    l.snapshot('1477.66', S2);
    const [finding, ...rest] = runOn(l, [CODE]).findings;
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      merchantId: l.merchantId,
      snapshotAt: S2,
      cardId: null,
      currency: 'USD',
      expected: '1490.00',
      actual: '1477.66',
      delta: '-12.34',
    });
  });

  it('lets the change differ from the flows by the tolerance, not by one minor unit more', () => {
    const within = openLedger(temp);
    busyDay(within);
    within.snapshot('1000.00', S1);
    within.snapshot('1489.93', S2); // 1490.00 expected
    const beyond = openLedger(temp);
    busyDay(beyond);
    beyond.snapshot('1000.00', S1);
    beyond.snapshot('1490.08', S2);
    const settings = { tolerances: { MERCHANT_BALANCE_MISMATCH: 7 } };
    expect(lines(runOn(within, [CODE], { settings }))).toEqual([]);
    expect(lines(runOn(within, [CODE]))).toEqual([`${CODE} snapshotAt=${S2}`]);
    expect(
      runOn(beyond, [CODE], { settings }).findings.map((f) => [f.snapshotAt, f.delta]),
    ).toEqual([[S2, '0.08']]);
  });

  it('skips an interval with an order within 2 minutes before its earlier snapshot, which the read may not show yet', () => {
    const l = openLedger(temp);
    l.order({ kind: 'TOPUP', amount: '500.00', submittedAt: shift(S1, -MINUTE), orderNo: null });
    l.snapshot('1000.00', S1);
    l.snapshot('1500.00', S2);
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped.map((s) => s.reason)).toEqual([
      'a journal order within 120 s of a snapshot',
    ]);
  });

  it('skips an interval with an order within 2 minutes after its later snapshot, which the read may already show', () => {
    const l = openLedger(temp);
    l.snapshot('1000.00', S1);
    // Read at S2 by our clock, but the top-up a minute later may already be in it.
    l.order({ kind: 'TOPUP', amount: '500.00', submittedAt: shift(S2, MINUTE), orderNo: null });
    l.snapshot('1500.00', S2);
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped.map((s) => s.reason)).toEqual([
      'a journal order within 120 s of a snapshot',
    ]);
  });

  it('judges snapshots taken exactly at the start and at the end of the synced range', () => {
    const l = openLedger(temp);
    l.snapshot('1000.00', S1);
    l.snapshot('999.00', S2);
    l.synced(S1, S2);
    expect(runOn(l, [CODE]).findings.map((f) => [f.snapshotAt, f.delta])).toEqual([[S2, '-1.00']]);
  });

  it('skips an interval whose snapshots are in two currencies: their minor units do not compare', () => {
    const l = openLedger(temp);
    l.snapshot('1000.00', S1);
    l.writers.merchants.addBalance(
      { balance: '1000', currency: 'JPY' },
      { merchantId: l.merchantId, runId: 'run-jpy', observedAt: S2 },
    );
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped.map((s) => s.reason)).toEqual([
      'the merchant currency changed between the snapshots',
    ]);
  });

  it('leaves an unexplained change undecided after a sync whose count audit did not finish, and judges it once one has', () => {
    const l = openLedger(temp);
    busyDay(l);
    l.snapshot('1000.00', S1);
    l.snapshot('1477.66', S2);
    const sync = (runId: string, audit: string) =>
      l.db
        .prepare(
          `INSERT INTO sync_runs (run_id, command, started_at, outcome, pid, host, summary)
           VALUES (?, 'sync', ?, 'done', 1, 'test', ?)`,
        )
        .run(
          runId,
          shift(S2, MINUTE + Number(runId.slice(-1))),
          JSON.stringify([{ merchantId: l.merchantId, audit: { outcome: audit } }]),
        );
    sync('sync-1', 'skipped');
    let results = runOn(l, [CODE]);
    expect(results.findings).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'intervals',
        reason:
          "the last sync's count audit did not finish: an order outcome's status change may not be mirrored: checked by the next run",
        count: 1,
      },
    ]);
    sync('sync-2', 'done');
    results = runOn(l, [CODE]);
    expect(results.findings.map((f) => f.delta)).toEqual(['-12.34']);
  });

  it('takes an order whose FEE record is PENDING as not failed: its amount is not given back', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), {
      amount: '100.00',
      at: shift(S1, HOUR),
      outcome: 'PENDING',
    });
    card.write();
    l.snapshot('1000.00', S1);
    l.snapshot('900.00', S2);
    expect(lines(runOn(l, [CODE]))).toEqual([]);
  });

  it("takes a WITHDRAW whose FEE record is PENDING as done in a cancelled card's balance too", () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00', at: shift(S1, HOUR), fee: '0.00' });
    card.money('WITHDRAW', '30.00', shift(S1, 2 * HOUR), { outcome: 'PENDING' });
    card.switchTo('CANCEL', shift(S1, 3 * HOUR));
    card.write();
    l.snapshot('1000.00', S1);
    // -100 issued, +30 withdrawn, +70 returned by the cancellation
    l.snapshot('1000.00', S2);
    expect(lines(runOn(l, [CODE]))).toEqual([]);
  });

  it('writes a change past 2^53 minor units exactly instead of failing the run', () => {
    const l = openLedger(temp);
    l.snapshot('-90071992547409.91', S1);
    l.snapshot('90071992547409.91', S2);
    const [finding] = runOn(l, [CODE]).findings;
    expect(finding).toMatchObject({
      expected: '-90071992547409.91',
      actual: '90071992547409.91',
      delta: '180143985094819.82',
    });
  });

  it("counts a cancelled card's balance exactly when its ledger passes 2^53 minor units on the way", () => {
    const l = openLedger(temp);
    const offering = l.offering({ maxLoadAmount: '90071992547409.91', depositFeePercent: '0' });
    // 90,071,992,547,409.91 + 0.02 is 2^53 + 1 cents, which a float holds as 2^53: a cent lost.
    const card = l.issue(offering, {
      amount: '90071992547409.91',
      at: shift(S1, -HOUR),
      fee: '0.00',
    });
    card.money('DEPOSIT', '0.02', shift(S1, -30 * MINUTE));
    card.activity({ amount: '90071992547400.00', createdAt: shift(S1, HOUR) });
    card.switchTo('CANCEL', shift(S1, 2 * HOUR));
    card.write();
    l.snapshot('1000.00', S1);
    // +9.93 returned by the cancellation: 90071992547409.91 + 0.02 - 90071992547400.00
    l.snapshot('1009.93', S2);
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).examined).toEqual({ intervals: 1, orders: 1 });
  });

  it("counts a cancelled card's balance past SQLite's integer range (2^63) exactly instead of failing the run", () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00', at: shift(S1, -HOUR) });
    // 1,025 refunds of 2^53 - 1 cents (each a valid amount): SQLite's sum() throws past 2^63.
    card.activities(
      Array.from({ length: 1025 }, () => ({
        type: 'REFUND' as const,
        amount: '90071992547409.91',
        createdAt: shift(S1, -30 * MINUTE),
      })),
    );
    const returned = card.balance;
    card.switchTo('CANCEL', shift(S1, 2 * HOUR));
    card.write();
    l.snapshot('1000.00', S1);
    // What the cancellation would have returned without the refunds.
    l.snapshot('1098.00', S2);
    // And another interval, unexplained.
    l.snapshot('1090.00', shift(S2, DAY));
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.snapshotAt, f.expected, f.actual, f.delta])).toEqual([
      [S2, l.text(l.minor('1000.00') + returned), '1098.00', l.text(l.minor('98.00') - returned)],
      [shift(S2, DAY), '1098.00', '1090.00', '-8.00'],
    ]);
    expect(l.text(returned)).toBe('92323792361095255.75');
  });

  it('times a flow that follows an outcome by its FEE record', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00', at: shift(S1, -HOUR) });
    // Submitted before S1, failed after it: -50 in the first interval, +50 in the second.
    const failed = card.money('DEPOSIT', '50.00', shift(S1, -30 * MINUTE), { outcome: 'none' });
    card.settle(failed.orderNo as string, shift(S1, HOUR), 'DECLINED', '0.00');
    card.write();
    l.snapshot('1000.00', shift(S1, -2 * HOUR));
    l.snapshot('850.00', S1);
    l.snapshot('900.00', S2);
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).examined.intervals).toBe(2);
  });

  it('skips an interval with an order within 2 minutes of a snapshot, or of unknown effect', () => {
    const l = openLedger(temp);
    l.snapshot('1000.00', S1);
    l.order({ kind: 'TOPUP', amount: '1.00', submittedAt: shift(S1, 90_000), orderNo: null });
    l.snapshot('2000.00', S2);
    l.order({
      kind: 'ISSUE',
      amount: '10.00',
      submittedAt: shift(S2, HOUR),
      orderNo: null,
      state: 'SUBMITTED',
    });
    l.snapshot('3000.00', shift(S2, DAY));
    l.snapshot('3000.00', shift(S2, 2 * DAY));
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE)).toMatchObject({
      examined: { intervals: 1 },
      skipped: [
        { unit: 'intervals', reason: 'a journal order within 120 s of a snapshot', count: 1 },
        {
          unit: 'intervals',
          reason: 'an order between the snapshots with no orderNo or no amount',
          count: 1,
        },
      ],
    });
  });

  it('skips an interval with a CANCEL of a card whose DEPOSIT or WITHDRAW has no orderNo', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    // Deposited before S1 by an order the books hold without its orderNo: the upstream took it
    // (its FEE record is there), so the cancellation returned 50.00 the ledger cannot place.
    const deposited = l.issue(offering, { amount: '100.00', at: shift(S1, -3 * HOUR) });
    deposited.money('DEPOSIT', '50.00', shift(S1, -2 * HOUR), { orderNo: null });
    deposited.settle('ord_unjournaled', shift(S1, -2 * HOUR + 2_000), 'COMPLETED', '0.50');
    deposited.balance += l.minor('50.00');
    deposited.switchTo('CANCEL', shift(S1, 3 * HOUR));
    deposited.write();
    // Withdrawn before S1 by an order still SUBMITTED (no orderNo yet) that the upstream did.
    const withdrawn = l.issue(offering, { amount: '100.00', at: shift(S1, -3 * HOUR) });
    withdrawn.money('WITHDRAW', '30.00', shift(S1, -2 * HOUR), { orderNo: null });
    l.db
      .prepare("UPDATE orders SET state = 'SUBMITTED' WHERE card_id = ? AND kind = 'WITHDRAW'")
      .run(withdrawn.cardId);
    withdrawn.settle('ord_unsettled', shift(S1, -2 * HOUR + 2_000), 'COMPLETED', '0.00');
    withdrawn.balance -= l.minor('30.00');
    withdrawn.switchTo('CANCEL', shift(S2, 3 * HOUR));
    withdrawn.write();
    l.snapshot('1000.00', S1);
    // + 147.50 returned by the first cancellation (100 - 2.00 issuance fee + 50 - 0.50)
    l.snapshot('1147.50', S2);
    // + 68.00 returned by the second (100 - 2.00 - 30)
    l.snapshot('1215.50', shift(S2, DAY));
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'intervals',
        reason: "a cancelled card's balance before its CANCEL is unknown",
        count: 2,
      },
    ]);
  });

  it('skips an interval with a CANCEL of a card with a transaction in quarantine', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00', at: shift(S1, -3 * HOUR) });
    // A 10.00 purchase the upstream booked and the sync quarantined: the mirror lacks it.
    l.quarantine({ transactionId: 'txn_bad', cardId: card.cardId, type: 'PURCHASE', amount: 10 });
    card.balance -= l.minor('10.00');
    card.switchTo('CANCEL', shift(S1, 3 * HOUR));
    card.write();
    l.snapshot('1000.00', S1);
    // + 88.00 returned by the cancellation (100 - 2.00 issuance fee - 10)
    l.snapshot('1088.00', S2);
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'intervals',
        reason: "a cancelled card's balance before its CANCEL is unknown",
        count: 1,
      },
    ]);
  });

  it('judges an interval beside a REJECTED order: the refusal moved no money', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '100.00', at: shift(S1, -HOUR) });
    card.write();
    l.snapshot('1000.00', S1);
    // Refused by the upstream (journaled REJECTED by the order desk) seconds around the reads.
    const refused = { orderNo: null, state: 'REJECTED' } as const;
    l.order({ kind: 'ISSUE', amount: '50.00', submittedAt: shift(S1, 30_000), ...refused });
    l.order({
      kind: 'DEPOSIT',
      cardId: card.cardId,
      amount: '20.00',
      submittedAt: shift(S2, -30_000),
      ...refused,
    });
    l.order({
      kind: 'WITHDRAW',
      cardId: card.cardId,
      amount: '5.00',
      submittedAt: shift(S2, 60_000),
      ...refused,
    });
    // 12.34 left the account with nothing in the journal to explain it.
    l.snapshot('987.66', S2);
    const results = runOn(l, [CODE]);
    expect(coverageOf(results, CODE)).toMatchObject({
      examined: { intervals: 1, orders: 0 },
      skipped: [],
    });
    expect(results.findings.map((f) => [f.snapshotAt, f.expected, f.actual, f.delta])).toEqual([
      [S2, '1000.00', '987.66', '-12.34'],
    ]);
  });

  it('keeps reporting an unexplained interval until the journal explains it', () => {
    const l = openLedger(temp);
    l.snapshot('1000.00', S1);
    l.snapshot('1250.00', S2);
    l.snapshot('1250.00', shift(S2, DAY));
    expect(lines(runOn(l, [CODE]))).toEqual([`${CODE} snapshotAt=${S2}`]);
    l.order({ kind: 'TOPUP', amount: '250.00', submittedAt: shift(S1, HOUR), orderNo: null });
    expect(lines(runOn(l, [CODE]))).toEqual([]);
  });

  it('needs two snapshots, and works in JPY', () => {
    const l = openLedger(temp, { currency: 'JPY' });
    l.snapshot('100000', S1);
    expect(coverageOf(runOn(l, [CODE]), CODE).examined).toEqual({ intervals: 0, orders: 0 });
    l.snapshot('98766', S2);
    expect(runOn(l, [CODE]).findings.map((f) => [f.expected, f.actual, f.delta])).toEqual([
      ['100000', '98766', '-1234'],
    ]);
  });
});
