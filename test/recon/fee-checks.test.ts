import { describe, expect, it } from 'vitest';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { coverageOf, lines, runOn } from './support/run-one.js';
import { DAY, HISTORY_AT, openLedger, shift } from './support/test-ledger.js';

const temp = useTempMirrors();
const DAY1 = shift(HISTORY_AT, DAY);

describe('ISSUANCE_FEE_MISMATCH', () => {
  const CODE = 'ISSUANCE_FEE_MISMATCH';

  it("reports a COMPLETED issuance FEE other than the offering's issuanceFee", () => {
    const l = openLedger(temp);
    const offering = l.offering({ issuanceFee: '2.00' });
    l.issue(offering).write();
    const wrong = l.issue(offering, { fee: '2.50' });
    wrong.write();
    const [finding, ...rest] = runOn(l, [CODE]).findings;
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      orderNo: wrong.issueOrderNo,
      merchantOrderNo: wrong.issueMerchantOrderNo,
      cardId: wrong.cardId,
      expected: '2.00',
      actual: '2.50',
      delta: '0.50',
    });
  });

  it('accepts a zero fee on an offering without one, and checks no failed issue', () => {
    const l = openLedger(temp);
    l.issue(l.offering({ issuanceFee: '0.00' })).write();
    l.issue(l.offering({ issuanceFee: '3.00' }), { outcome: 'DECLINED' }).write();
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE)).toMatchObject({
      examined: { orders: 1 },
      skipped: [
        { unit: 'orders', reason: 'failed (FEE record DECLINED): no fee charged', count: 1 },
      ],
    });
  });

  it('waits for a fee still PENDING: only a final fee is compared', () => {
    const l = openLedger(temp);
    l.issue(l.offering({ issuanceFee: '2.00' }), { fee: '2.50', outcome: 'PENDING' }).write();
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE)).toMatchObject({
      examined: { orders: 0 },
      skipped: [
        {
          unit: 'orders',
          reason: 'FEE record still PENDING: the fee charged is not final',
          count: 1,
        },
      ],
    });
  });

  it('compares with the terms in force when the order was submitted', () => {
    const l = openLedger(temp);
    const offering = l.offering({ issuanceFee: '2.00' });
    const card = l.issue(offering, { fee: '2.00', at: shift(HISTORY_AT, 2 * DAY) });
    card.write();
    // The terms change later: the earlier issue stays right.
    l.writers.offerings.write([{ ...offering, issuanceFee: '3.00' }], {
      merchantId: l.merchantId,
      runId: 'later',
      observedAt: shift(HISTORY_AT, 5 * DAY),
    });
    const late = l.issue(offering, { fee: '2.00', at: shift(HISTORY_AT, 6 * DAY) });
    late.write();
    const findings = runOn(l, [CODE]).findings;
    expect(findings.map((f) => [f.orderNo, f.expected, f.actual])).toEqual([
      [late.issueOrderNo, '3.00', '2.00'],
    ]);
  });

  it('accepts the next terms for an order submitted between the last read of the old terms and the first of the new', () => {
    const l = openLedger(temp);
    const offering = l.offering({ issuanceFee: '2.00' });
    const read = (issuanceFee: string, day: number) =>
      l.writers.offerings.write([{ ...offering, issuanceFee }], {
        merchantId: l.merchantId,
        runId: `day-${day}`,
        observedAt: shift(HISTORY_AT, day * DAY),
      });
    read('2.00', 1); // still the old terms on day 1
    read('3.00', 5); // new terms first seen on day 5: changed at some moment in between
    const issue = (fee: string, day: number) => {
      const card = l.issue(offering, { fee, at: shift(HISTORY_AT, day * DAY) });
      card.write();
      return card.issueOrderNo;
    };
    const beforeChange = issue('3.00', 0.5); // the old terms were seen after it: wrong
    issue('3.00', 3); // on either terms: right
    issue('2.00', 3);
    const neither = issue('2.50', 3);
    const findings = runOn(l, [CODE]).findings;
    expect(findings.map((f) => [f.orderNo, f.expected, f.actual])).toEqual(
      expect.arrayContaining([
        [beforeChange, '2.00', '3.00'],
        [neither, '2.00', '2.50'],
      ]),
    );
    expect(findings).toHaveLength(2);
  });

  it.each([
    // FEE record in another currency than the offering's 2.00 USD (200 cents): its minor
    // units are no cents, equal (200 JPY) or not (3 JPY, which read '200' JPY due).
    ['200', 'JPY'],
    ['3', 'JPY'],
    ['2.000', 'KWD'],
  ])(
    "leaves an issue whose FEE record is %s %s out: minor units of two currencies (the offering's is USD)",
    (fee, currency) => {
      const l = openLedger(temp);
      const offering = l.offering({ issuanceFee: '2.00' });
      const at = shift(HISTORY_AT, 2 * DAY);
      const order = l.order({
        kind: 'ISSUE',
        offeringId: offering.id,
        amount: '100.00',
        submittedAt: at,
      });
      const cardId = 'card_other_currency';
      l.transaction({
        cardId,
        tradeNo: order.orderNo as string,
        type: 'FEE',
        amount: fee,
        currency,
        createdAt: shift(at, 2_000),
      });
      const results = runOn(l, [CODE]);
      expect(lines(results)).toEqual([]);
      expect(coverageOf(results, CODE).skipped).toEqual([
        { unit: 'orders', reason: "FEE record currency differs from the offering's", count: 1 },
      ]);
    },
  );
});

describe('DEPOSIT_FEE_MISMATCH', () => {
  const CODE = 'DEPOSIT_FEE_MISMATCH';

  /** A card of an offering charging `percent` %, with one deposit of `amount` charged `fee`. */
  function deposit(currency: string, percent: string, amount: string, fee: string) {
    const l = openLedger(temp, { currency });
    const card = l.issue(l.offering({ depositFeePercent: percent }));
    const order = card.money('DEPOSIT', amount, DAY1, { fee });
    card.write();
    return { l, card, order };
  }

  it.each([
    // amount, percent, right fee: half-up ties go away from zero.
    ['USD', '0.50', '1', '0.01'], // 0.005 -> 0.01
    ['USD', '0.49', '1', '0.00'], // 0.0049 -> 0.00
    ['USD', '10.50', '2.5', '0.26'], // 0.2625 -> 0.26
    ['USD', '10.20', '2.5', '0.26'], // 0.255 -> 0.26 (tie)
    ['USD', '1.00', '0.75', '0.01'], // 0.0075 -> 0.01
    ['USD', '200.00', '0', '0.00'], // no fee
    ['JPY', '150', '1', '2'], // 1.5 -> 2 (tie)
    ['JPY', '149', '1', '1'], // 1.49 -> 1
    ['BHD', '1.050', '1', '0.011'], // 0.0105 -> 0.011 (tie)
    ['BHD', '0.250', '0.75', '0.002'], // 0.001875 -> 0.002
  ])(
    '%s %s at %s percent is charged %s: no finding, one minor unit more is one',
    (currency, amount, percent, fee) => {
      expect(lines(runOn(deposit(currency, percent, amount, fee).l, [CODE]))).toEqual([]);
      const exponent = currency === 'JPY' ? 0 : currency === 'BHD' ? 3 : 2;
      const oneMore = (BigInt(fee.replace('.', '')) + 1n).toString().padStart(exponent + 1, '0');
      const more =
        exponent === 0 ? oneMore : `${oneMore.slice(0, -exponent)}.${oneMore.slice(-exponent)}`;
      const { l, order } = deposit(currency, percent, amount, more);
      const [finding] = runOn(l, [CODE]).findings;
      expect(finding).toMatchObject({ orderNo: order.orderNo, expected: fee, actual: more });
    },
  );

  it('accepts the next terms for a deposit submitted before they were first seen but after the old ones were last seen', () => {
    const l = openLedger(temp);
    const offering = l.offering({ depositFeePercent: '1' });
    const card = l.issue(offering);
    l.writers.offerings.write([{ ...offering, depositFeePercent: '2' }], {
      merchantId: l.merchantId,
      runId: 'day-5',
      observedAt: shift(HISTORY_AT, 5 * DAY),
    });
    card.money('DEPOSIT', '100.00', shift(HISTORY_AT, 3 * DAY), { fee: '2.00' });
    const neither = card.money('DEPOSIT', '100.00', shift(HISTORY_AT, 3 * DAY), { fee: '1.50' });
    card.write();
    expect(runOn(l, [CODE]).findings.map((f) => [f.orderNo, f.expected, f.actual])).toEqual([
      [neither.orderNo, '1.00', '1.50'],
    ]);
  });

  it('rounds with the configured mode instead', () => {
    // 9.80 at 2.5 % is 0.245: 0.25 half-up, 0.24 half-even or down.
    const { l } = deposit('USD', '2.5', '9.80', '0.25');
    expect(lines(runOn(l, [CODE]))).toEqual([]);
    const evenly = runOn(l, [CODE], { settings: { depositFeeRounding: 'half-even' } });
    expect(evenly.findings[0]).toMatchObject({ expected: '0.24', actual: '0.25', delta: '0.01' });
    const down = runOn(l, [CODE], { settings: { depositFeeRounding: 'down' } });
    expect(down.findings[0]).toMatchObject({ expected: '0.24' });
    const up = runOn(l, [CODE], { settings: { depositFeeRounding: 'up' } });
    expect(lines(up)).toEqual([]);
  });

  it('takes the percentage of the offering of the card the FEE record names', () => {
    const l = openLedger(temp);
    const cheap = l.offering({ depositFeePercent: '0' });
    const card = l.issue(l.offering({ depositFeePercent: '3' }));
    l.issue(cheap).write();
    card.money('DEPOSIT', '100.00', DAY1, { fee: '3.00' });
    card.write();
    expect(lines(runOn(l, [CODE]))).toEqual([]);
  });

  it("leaves a deposit journaled in another currency than its FEE record's out: its minor units are not the fee's", () => {
    // The books say 1000.00 USD; the card and its fee are in JPY. 1 % of 100,000 cents is no
    // number of yen, so the fee cannot be judged (as LOAD_OUT_OF_BOUNDS does with its bounds).
    const l = openLedger(temp);
    const card = l.issue(l.offering({ depositFeePercent: '1' }));
    const order = l.order({
      kind: 'DEPOSIT',
      cardId: card.cardId,
      amount: '1000.00',
      submittedAt: DAY1,
    });
    l.transaction({
      cardId: card.cardId,
      tradeNo: order.orderNo as string,
      type: 'FEE',
      amount: '10',
      currency: 'JPY',
      createdAt: shift(DAY1, 2_000),
    });
    card.write();
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE).skipped).toEqual([
      { unit: 'orders', reason: "journal currency differs from the FEE record's", count: 1 },
    ]);
  });

  it('says why a deposit could not be checked', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering());
    card.money('DEPOSIT', '10.00', DAY1, { outcome: 'none' });
    card.money('DEPOSIT', '10.00', DAY1, { outcome: 'DECLINED' });
    card.money('DEPOSIT', '10.00', DAY1, { orderNo: null });
    card.money('DEPOSIT', '10.00', DAY1, { fee: '0.101' });
    card.money('DEPOSIT', '10.00', DAY1, { fee: '0.10' });
    card.write();
    const results = runOn(l, [CODE]);
    expect(lines(results)).toEqual([]);
    expect(coverageOf(results, CODE)).toEqual({
      check: CODE,
      merchantId: l.merchantId,
      examined: { orders: 1 },
      skipped: [
        {
          unit: 'orders',
          reason: 'FEE amount too precise for its currency (PRECISION_VIOLATION)',
          count: 1,
        },
        { unit: 'orders', reason: 'failed (FEE record DECLINED): no fee charged', count: 1 },
        { unit: 'orders', reason: 'no orderNo: cannot be linked', count: 1 },
        { unit: 'orders', reason: 'no outcome yet (no FEE record)', count: 1 },
      ],
    });
  });
});

describe('WITHDRAWAL_FEE_MISMATCH', () => {
  const CODE = 'WITHDRAWAL_FEE_MISMATCH';

  it('reports a COMPLETED withdrawal FEE other than 0, and no failed one', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    card.money('WITHDRAW', '10.00', DAY1);
    const charged = card.money('WITHDRAW', '10.00', DAY1, { fee: '0.25' });
    card.money('WITHDRAW', '10.00', DAY1, { outcome: 'DECLINED' });
    card.write();
    const results = runOn(l, [CODE]);
    expect(results.findings).toHaveLength(1);
    expect(results.findings[0]).toMatchObject({
      orderNo: charged.orderNo,
      transactionId: charged.fee?.transactionId,
      expected: '0.00',
      actual: '0.25',
      delta: '0.25',
    });
    expect(coverageOf(results, CODE).examined).toEqual({ orders: 2 });
  });

  it('reports a negative withdrawal FEE too: a credit is no fee of 0', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    const credited = card.money('WITHDRAW', '10.00', DAY1, { fee: '-0.25' });
    card.write();
    expect(
      runOn(l, ['WITHDRAWAL_FEE_MISMATCH']).findings.map((f) => [f.orderNo, f.expected, f.actual]),
    ).toEqual([[credited.orderNo, '0.00', '-0.25']]);
  });
});

describe('the fee checks take a tolerance (docs/reconciliation.md: minor units a difference may reach)', () => {
  it('lets an issuance fee differ by the tolerance, not by one minor unit more', () => {
    const l = openLedger(temp);
    const offering = l.offering({ issuanceFee: '2.00' });
    l.issue(offering, { fee: '2.03' }).write();
    l.issue(offering, { fee: '1.97' }).write();
    const beyond = l.issue(offering, { fee: '2.04' });
    beyond.write();
    const settings = { tolerances: { ISSUANCE_FEE_MISMATCH: 3 } };
    expect(
      runOn(l, ['ISSUANCE_FEE_MISMATCH'], { settings }).findings.map((f) => f.orderNo),
    ).toEqual([beyond.issueOrderNo]);
    expect(runOn(l, ['ISSUANCE_FEE_MISMATCH']).findings).toHaveLength(3);
  });

  it('lets a deposit fee differ by the tolerance, not by one minor unit more', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering({ depositFeePercent: '1' }), { amount: '500.00' });
    card.money('DEPOSIT', '100.00', DAY1, { fee: '1.02' }); // 1.00 due
    card.money('DEPOSIT', '100.00', DAY1, { fee: '0.98' });
    const beyond = card.money('DEPOSIT', '100.00', DAY1, { fee: '1.03' });
    card.write();
    const settings = { tolerances: { DEPOSIT_FEE_MISMATCH: 2 } };
    expect(runOn(l, ['DEPOSIT_FEE_MISMATCH'], { settings }).findings.map((f) => f.orderNo)).toEqual(
      [beyond.orderNo],
    );
    expect(runOn(l, ['DEPOSIT_FEE_MISMATCH']).findings).toHaveLength(3);
  });

  it('lets a withdrawal fee reach the tolerance, not one minor unit more', () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00' });
    card.money('WITHDRAW', '10.00', DAY1, { fee: '0.02' });
    const beyond = card.money('WITHDRAW', '10.00', DAY1, { fee: '0.03' });
    card.write();
    const settings = { tolerances: { WITHDRAWAL_FEE_MISMATCH: 2 } };
    expect(
      runOn(l, ['WITHDRAWAL_FEE_MISMATCH'], { settings }).findings.map((f) => f.orderNo),
    ).toEqual([beyond.orderNo]);
    expect(runOn(l, ['WITHDRAWAL_FEE_MISMATCH']).findings).toHaveLength(2);
  });
});
