import { describe, expect, it } from 'vitest';
import { identityOf } from '../../src/recon/finding-identity.js';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { perRowReadsOf, plansDuring } from './support/query-plans.js';
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
const CUTOFF = shift(READ_AT, -MINUTE);

describe('ORDER_NOT_REFLECTED', () => {
  const CODE = 'ORDER_NOT_REFLECTED';

  it('reports a money order older than grace at the cutoff with no FEE record', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const lost = card.money('DEPOSIT', '10.00', shift(CUTOFF, -HOUR - 1), { outcome: 'none' });
    card.money('DEPOSIT', '10.00', shift(CUTOFF, -HOUR), { outcome: 'none' });
    card.money('WITHDRAW', '10.00', shift(CUTOFF, -HOUR + MINUTE), { outcome: 'none' });
    card.money('DEPOSIT', '10.00', shift(CUTOFF, -2 * HOUR), { outcome: 'DECLINED' });
    card.write();
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(results.findings.map((f) => [f.orderNo, f.cardId])).toEqual([
      [lost.orderNo, card.cardId],
    ]);
    expect(coverageOf(results, CODE)).toMatchObject({
      examined: { orders: 3 },
      skipped: [{ unit: 'orders', reason: 'within grace at the cutoff', count: 2 }],
    });
  });

  it('leaves out an order whose FEE record is in quarantine', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const held = card.money('DEPOSIT', '10.00', shift(CUTOFF, -2 * HOUR), { outcome: 'none' });
    l.quarantine({ transactionId: 'txn_bad', tradeNo: held.orderNo, type: 'FEE', amount: 0.1 });
    card.write();
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(results.findings).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'orders',
        reason:
          'a transaction of it is in quarantine (malformed upstream record): the mirror lacks it',
        count: 1,
      },
    ]);
  });

  it('takes grace from the settings', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    card.money('DEPOSIT', '10.00', shift(CUTOFF, -90 * MINUTE), { outcome: 'none' });
    card.write();
    expect(lines(runOn(l, [CODE], { cutoff: CUTOFF }))).toHaveLength(1);
    expect(lines(runOn(l, [CODE], { cutoff: CUTOFF, settings: { graceMs: 2 * HOUR } }))).toEqual(
      [],
    );
  });

  it('reports an ISSUE and a CANCEL without their FEE record', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const issue = l.order({
      kind: 'ISSUE',
      offeringId: offering.id,
      amount: '100.00',
      submittedAt: shift(CUTOFF, -DAY),
    });
    const card = l.issue(offering);
    const cancel = card.switchTo('CANCEL', shift(CUTOFF, -DAY), { reflected: false });
    card.write();
    expect(runOn(l, [CODE], { cutoff: CUTOFF }).findings.map((f) => [f.orderNo, f.cardId])).toEqual(
      expect.arrayContaining([
        [issue.orderNo, null],
        [cancel.orderNo, card.cardId],
      ]),
    );
  });

  it("holds the card's latest FREEZE or UNFREEZE to its status, unless a CANCEL follows", () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(CUTOFF, -hours * HOUR);
    // Frozen and unfrozen, as ordered.
    const spell = l.issue(offering);
    spell.switchTo('FREEZE', at(10));
    spell.switchTo('UNFREEZE', at(8));
    spell.write();
    // The FREEZE never took: the card is still ACTIVE.
    const stuck = l.issue(offering);
    const freeze = stuck.switchTo('FREEZE', at(3), { reflected: false });
    stuck.write();
    // An UNFREEZE that never took, on a FROZEN card.
    const cold = l.issue(offering);
    cold.switchTo('FREEZE', at(10));
    const unfreeze = cold.switchTo('UNFREEZE', at(5), { reflected: false });
    cold.write();
    // A lost FREEZE superseded by an UNFREEZE: only the latest counts.
    const superseded = l.issue(offering);
    superseded.switchTo('FREEZE', at(10), { reflected: false });
    superseded.switchTo('UNFREEZE', at(9));
    superseded.write();
    // A lost FREEZE, then the card was cancelled.
    const cancelled = l.issue(offering);
    cancelled.switchTo('FREEZE', at(10), { reflected: false });
    cancelled.switchTo('CANCEL', at(9));
    cancelled.write();
    // A FREEZE within grace.
    const recent = l.issue(offering);
    recent.switchTo('FREEZE', shift(CUTOFF, -30 * MINUTE), { reflected: false });
    recent.write();
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(results.findings.map((f) => [f.orderNo, f.cardId, f.expected, f.actual])).toEqual(
      expect.arrayContaining([
        [freeze.orderNo, stuck.cardId, 'FROZEN', 'ACTIVE'],
        [unfreeze.orderNo, cold.cardId, 'ACTIVE', 'FROZEN'],
      ]),
    );
    expect(results.findings).toHaveLength(2);
  });

  it('judges a FREEZE by a card read more than grace after it, not by one read exactly grace after it', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const submitted = shift(CUTOFF, -5 * HOUR);
    // Read exactly grace (an hour) after the FREEZE: the order was not yet past grace when the
    // card was read, as an order exactly grace old at the cutoff is within grace.
    const atGrace = l.issue(offering);
    atGrace.switchTo('FREEZE', submitted, { reflected: false });
    atGrace.write({}, shift(submitted, HOUR));
    const past = l.issue(offering);
    const freeze = past.switchTo('FREEZE', submitted, { reflected: false });
    past.write({}, shift(submitted, HOUR + 1));
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(results.findings.map((f) => [f.orderNo, f.cardId])).toEqual([
      [freeze.orderNo, past.cardId],
    ]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'orders',
        reason:
          'card last read before the order was past grace (its sync failed on the cards): its status may not show it',
        count: 1,
      },
    ]);
  });

  it('takes a later FREEZE, UNFREEZE or CANCEL journaled without orderNo as following the earlier one', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(CUTOFF, -hours * HOUR);
    // Frozen, then unfrozen by an order the books hold without its orderNo: the card is ACTIVE.
    const thawed = l.issue(offering);
    thawed.switchTo('FREEZE', at(10));
    l.order({ kind: 'UNFREEZE', cardId: thawed.cardId, submittedAt: at(8), orderNo: null });
    thawed.status = 'ACTIVE';
    thawed.write();
    // A FREEZE that never took, then a CANCEL imported without its orderNo that did.
    const cancelled = l.issue(offering);
    cancelled.switchTo('FREEZE', at(10), { reflected: false });
    l.order({
      kind: 'CANCEL',
      cardId: cancelled.cardId,
      submittedAt: at(8),
      orderNo: null,
      state: 'IMPORTED',
    });
    cancelled.status = 'CANCELLED';
    cancelled.balance = 0n;
    cancelled.write();
    // An UNFREEZE the upstream refused follows nothing: the FREEZE before it never took.
    const stuck = l.issue(offering);
    const freeze = stuck.switchTo('FREEZE', at(10), { reflected: false });
    l.order({
      kind: 'UNFREEZE',
      cardId: stuck.cardId,
      submittedAt: at(8),
      orderNo: null,
      state: 'REJECTED',
    });
    stuck.write();
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(results.findings.map((f) => [f.orderNo, f.cardId, f.expected, f.actual])).toEqual([
      [freeze.orderNo, stuck.cardId, 'FROZEN', 'ACTIVE'],
    ]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      { unit: 'orders', reason: 'no orderNo: cannot be linked', count: 2 },
      { unit: 'orders', reason: 'rejected by the upstream: not an order', count: 1 },
    ]);
  });

  it('judges a FREEZE or UNFREEZE the upstream accepted without an orderNo by its card, keeping its finding open by merchantOrderNo', () => {
    // The interface shows no answer body for freeze and unfreeze: the desk journals a 2xx that
    // named none ACCEPTED without orderNo. Its card's status judges it all the same.
    const l = openLedger(temp);
    const offering = l.offering();
    const submitted = shift(CUTOFF, -5 * HOUR);
    const accepted = (kind: 'FREEZE' | 'UNFREEZE', cardId: string) =>
      l.order({ kind, cardId, submittedAt: submitted, orderNo: null, state: 'ACCEPTED' });
    const notFrozen = l.issue(offering);
    const freeze = accepted('FREEZE', notFrozen.cardId);
    notFrozen.write();
    const frozen = l.issue(offering);
    accepted('FREEZE', frozen.cardId);
    frozen.status = 'FROZEN';
    frozen.write();
    // Read exactly grace after it: its status may not show it yet, and its finding stays open.
    const readSoon = l.issue(offering);
    const undecidedFreeze = accepted('FREEZE', readSoon.cardId);
    readSoon.write({}, shift(submitted, HOUR));
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(
      results.findings.map((f) => [f.orderNo, f.merchantOrderNo, f.cardId, f.expected, f.actual]),
    ).toEqual([[null, freeze.merchantOrderNo, notFrozen.cardId, 'FROZEN', 'ACTIVE']]);
    expect(results.findings.map((f) => identityOf(f.check, f.merchantId, f))).toEqual([
      `${CODE} merchantId=${l.merchantId} merchantOrderNo=${freeze.merchantOrderNo}`,
    ]);
    const undecided = results.undecided.find((u) => u.check === CODE)?.undecided;
    const open =
      undecided && 'ids' in undecided ? [...(undecided.ids.get('merchantOrderNo') ?? [])] : [];
    expect(open).toEqual([undecidedFreeze.merchantOrderNo]);
  });

  it('leaves undecided a FREEZE followed only by an order still awaiting its answer', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const at = (hours: number) => shift(CUTOFF, -hours * HOUR);
    const awaiting = (kind: 'FREEZE' | 'UNFREEZE' | 'CANCEL', cardId: string, hours: number) =>
      l.order({ kind, cardId, submittedAt: at(hours), orderNo: null, state: 'SUBMITTED' });
    // Not frozen, then an UNFREEZE sent whose answer was lost: it may never have left.
    const lost = l.issue(offering);
    const unjudged = lost.switchTo('FREEZE', at(10), { reflected: false });
    awaiting('UNFREEZE', lost.cardId, 8);
    lost.write();
    // The same before a CANCEL sent whose answer was lost.
    const cancelling = l.issue(offering);
    const beforeCancel = cancelling.switchTo('FREEZE', at(10), { reflected: false });
    awaiting('CANCEL', cancelling.cardId, 8);
    cancelling.write();
    // Frozen and unfrozen by orders the upstream took: a FREEZE sent since changes nothing
    // for the first, and leaves the UNFREEZE undecided.
    const settled = l.issue(offering);
    settled.switchTo('FREEZE', at(10));
    const unfreeze = settled.switchTo('UNFREEZE', at(9));
    awaiting('FREEZE', settled.cardId, 8);
    settled.write();
    const results = runOn(l, [CODE], { cutoff: CUTOFF });
    expect(results.findings).toEqual([]);
    const reason = 'a later FREEZE, UNFREEZE or CANCEL of the card awaits its answer';
    expect(coverageOf(results, CODE).skipped).toContainEqual({ unit: 'orders', reason, count: 3 });
    const undecided = results.undecided.find((u) => u.check === CODE)?.undecided;
    const open = undecided && 'ids' in undecided ? [...(undecided.ids.get('orderNo') ?? [])] : [];
    expect(open.sort()).toEqual([unjudged.orderNo, beforeCancel.orderNo, unfreeze.orderNo].sort());
  });

  it("reads a card's FREEZE and UNFREEZE orders once, not once per order", () => {
    // A card frozen and unfrozen nightly for years (20,000 orders) took minutes: each order
    // looked up the card's later orders among all of them, three times over.
    const l = openLedger(temp);
    const card = l.issue(l.offering());
    const at = (hours: number) => shift(CUTOFF, -hours * HOUR);
    card.switchTo('FREEZE', at(10));
    card.switchTo('UNFREEZE', at(9));
    const lost = card.switchTo('FREEZE', at(8), { reflected: false });
    card.write();
    let results: ReturnType<typeof runOn> | undefined;
    const plans = plansDuring(l.db, () => {
      results = runOn(l, [CODE], { cutoff: CUTOFF });
    });
    expect(results && lines(results)).toEqual([
      `${CODE} cardId=${card.cardId} orderNo=${lost.orderNo}`,
    ]);
    expect(perRowReadsOf(plans)).toEqual([]);
  });

  it('says which orders cannot be linked, and judges nothing without a cutoff', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    card.write();
    const old = shift(HISTORY_AT, DAY);
    l.order({
      kind: 'DEPOSIT',
      cardId: card.cardId,
      amount: '1.00',
      submittedAt: old,
      orderNo: null,
    });
    l.order({
      kind: 'DEPOSIT',
      cardId: card.cardId,
      amount: '1.00',
      submittedAt: old,
      orderNo: null,
      state: 'SUBMITTED',
    });
    l.order({
      kind: 'WITHDRAW',
      cardId: card.cardId,
      amount: '1.00',
      submittedAt: old,
      orderNo: null,
      state: 'REJECTED',
    });
    l.order({ kind: 'TOPUP', amount: '1000.00', submittedAt: old, orderNo: null });
    expect(coverageOf(runOn(l, [CODE], { cutoff: CUTOFF }), CODE)).toEqual({
      check: CODE,
      merchantId: l.merchantId,
      examined: { orders: 1 },
      skipped: [
        { unit: 'orders', reason: 'no orderNo: cannot be linked', count: 1 },
        { unit: 'orders', reason: 'rejected by the upstream: not an order', count: 1 },
        { unit: 'orders', reason: 'submitted, acceptance not yet known (no orderNo)', count: 1 },
      ],
    });
    expect(coverageOf(runOn(l, [CODE]), CODE).skipped).toContainEqual({
      unit: 'orders',
      reason: 'no synced range: cutoff unknown',
      count: 1,
    });
  });

  it('takes the cutoff from the synced range', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    card.money('DEPOSIT', '10.00', shift(CUTOFF, -2 * HOUR), { outcome: 'none' });
    card.write();
    l.synced(HISTORY_AT, shift(CUTOFF, -3 * HOUR));
    expect(lines(runOn(l, [CODE]))).toEqual([]);
    l.synced(shift(CUTOFF, -3 * HOUR), CUTOFF, shift(READ_AT, MINUTE));
    expect(lines(runOn(l, [CODE]))).toHaveLength(1);
  });

  it('judges an order submitted at the very start of the synced range, not one a millisecond before', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const start = shift(CUTOFF, -3 * HOUR);
    const atStart = card.money('DEPOSIT', '10.00', start, { outcome: 'none' });
    card.money('DEPOSIT', '10.00', shift(start, -1), { outcome: 'none' });
    card.write();
    l.synced(start, CUTOFF);
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => f.orderNo)).toEqual([atStart.orderNo]);
    expect(coverageOf(results, CODE).skipped).toContainEqual({
      unit: 'orders',
      reason: 'submitted before the synced range: its FEE record is not mirrored',
      count: 2, // the deposit a millisecond before, and the card's ISSUE
    });
  });
});

describe('LOAD_OUT_OF_BOUNDS', () => {
  const CODE = 'LOAD_OUT_OF_BOUNDS';

  it("reports an ISSUE amount outside the offering's bounds, not one on them", () => {
    const l = openLedger(temp);
    const offering = l.offering({ minLoadAmount: '10.00', maxLoadAmount: '500.00' });
    l.issue(offering, { amount: '10.00' }).write();
    l.issue(offering, { amount: '500.00' }).write();
    const above = l.issue(offering, { amount: '500.01' });
    above.write();
    const below = l.issue(offering, { amount: '9.99' });
    below.write();
    const findings = runOn(l, [CODE]).findings;
    expect(findings.map((f) => [f.orderNo, f.cardId, f.expected, f.actual, f.delta])).toEqual(
      expect.arrayContaining([
        [above.issueOrderNo, above.cardId, '500.00', '500.01', '0.01'],
        [below.issueOrderNo, below.cardId, '10.00', '9.99', '-0.01'],
      ]),
    );
    expect(findings).toHaveLength(2);
  });

  it('takes the next bounds too for an order submitted before they were first seen but after the old ones were last seen', () => {
    const l = openLedger(temp);
    const offering = l.offering({ minLoadAmount: '10.00', maxLoadAmount: '500.00' });
    l.writers.offerings.write([{ ...offering, maxLoadAmount: '1000.00' }], {
      merchantId: l.merchantId,
      runId: 'day-5',
      observedAt: shift(HISTORY_AT, 5 * DAY),
    });
    const at = shift(HISTORY_AT, 3 * DAY);
    l.issue(offering, { amount: '800.00', at }).write();
    const beyondBoth = l.issue(offering, { amount: '1000.01', at });
    beyondBoth.write();
    expect(runOn(l, [CODE]).findings.map((f) => [f.orderNo, f.expected, f.actual])).toEqual([
      [beyondBoth.issueOrderNo, '500.00', '1000.01'],
    ]);
  });

  it("leaves out an ISSUE in another currency than its offering's: its minor units are not the bounds'", () => {
    const l = openLedger(temp);
    // 5.00 USD is below 10.00 EUR only in minor units; 600.00 USD is above 500.00 EUR alike.
    const offering = l.offering({
      currency: 'EUR',
      minLoadAmount: '10.00',
      maxLoadAmount: '500.00',
    });
    for (const amount of ['5.00', '600.00'])
      l.order({ kind: 'ISSUE', offeringId: offering.id, amount, submittedAt: HISTORY_AT });
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      { unit: 'orders', reason: "journal currency differs from the offering's", count: 2 },
    ]);
  });

  it('works in a 0-decimal currency', () => {
    const l = openLedger(temp, { currency: 'JPY' });
    const offering = l.offering({ minLoadAmount: '1000', maxLoadAmount: '50000' });
    const above = l.issue(offering, { amount: '50001' });
    above.write();
    expect(runOn(l, [CODE]).findings.map((f) => [f.expected, f.actual])).toEqual([
      ['50000', '50001'],
    ]);
  });
});

describe('UNJOURNALED_CARD', () => {
  const CODE = 'UNJOURNALED_CARD';

  it('reports, as info, a card with no linked ISSUE order in the journal', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    l.issue(offering).write();
    const loose = l.issue(offering, { journaled: false });
    loose.write();
    const results = runOn(l, [CODE]);
    expect(results.findings.map((f) => [f.cardId, f.severity])).toEqual([[loose.cardId, 'info']]);
    expect(coverageOf(results, CODE).examined).toEqual({ cards: 2 });
  });

  it('leaves a PENDING card undecided while an ISSUE of the journal awaits its outcome, and reports one when none does', () => {
    const l = openLedger(temp);
    const offering = l.offering();
    const pending = (card: ReturnType<typeof l.issue>) => {
      card.status = 'PENDING';
      card.balance = 0n;
      card.write();
    };
    // Issued by the books an hour ago, not complete: the FEE record that links it is to come.
    const issuing = l.issue(offering, { outcome: 'none' });
    pending(issuing);
    let results = runOn(l, [CODE]);
    expect(results.findings).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      {
        unit: 'cards',
        reason:
          'issuance not complete while a journal ISSUE awaits its outcome (its FEE record links the card)',
        count: 1,
      },
    ]);
    // Once that ISSUE has its outcome, a PENDING card no ISSUE awaits is nobody's in the books.
    issuing.settle(issuing.issueOrderNo, shift(READ_AT, -HOUR), 'COMPLETED', offering.issuanceFee);
    const stray = l.issue(offering, { journaled: false, outcome: 'none' });
    pending(stray);
    results = runOn(l, [CODE]);
    expect(results.findings.map((f) => f.cardId)).toEqual([stray.cardId]);
  });
});
