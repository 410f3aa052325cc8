import { describe, expect, it } from 'vitest';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { runOn } from './support/run-one.js';
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

// The interface promises decimal text, not a number of digits, and the journal keeps an imported
// amount as written: '4.1', '0012.5' and '25' are USD amounts. Finance reads the detail beside
// the amount columns, so it quotes each amount as they do, in the currency's exponent.
describe('the amounts a finding\'s detail quotes (docs/reconciliation.md, "A finding")', () => {
  it("writes a card's balance and a transaction's amount in the currency's exponent", () => {
    const l = openLedger(temp);
    const card = l.issue(l.offering(), { amount: '500.00', at: shift(READ_AT, -30 * DAY) });
    const first = card.activity({ amount: '4.10', createdAt: shift(READ_AT, -20 * DAY) });
    const repeat = card.activity({
      amount: '4.1',
      tradeNo: first.tradeNo,
      createdAt: shift(READ_AT, -19 * DAY),
    });
    const cancelledAt = shift(READ_AT, -5 * DAY);
    card.switchTo('CANCEL', cancelledAt);
    const late = card.activity({ amount: '0012.5', createdAt: shift(cancelledAt, 2 * HOUR) });
    card.write({ balance: '0.00' });
    const below = l.issue(l.offering(), { amount: '100.00', at: shift(READ_AT, -30 * DAY) });
    below.write({ balance: '-4.1' });
    const results = runOn(
      l,
      ['DUPLICATE_TRANSACTION', 'ACTIVITY_ON_INACTIVE_CARD', 'NEGATIVE_BALANCE'],
      { cutoff: READ_AT },
    );
    expect(
      results.findings.map((f) => [f.transactionId ?? f.cardId, f.actual, f.detail]).sort(),
    ).toEqual(
      [
        [
          late.transactionId,
          '12.50',
          `PURCHASE of 12.50 USD at ${late.createdAt}, after the CANCEL submitted ${cancelledAt}`,
        ],
        [
          repeat.transactionId,
          '4.10',
          `PURCHASE of 4.10 USD on trade ${first.tradeNo} repeats ${first.transactionId}`,
        ],
        [below.cardId, '-4.10', 'ACTIVE card with balance -4.10 USD'],
      ].sort(),
    );
  });

  it('writes a JPY balance without decimals and without the leading zeros it came with', () => {
    const l = openLedger(temp, { currency: 'JPY' });
    const card = l.issue(l.offering(), { amount: '50000' });
    card.write({ balance: '-0410' });
    expect(runOn(l, ['NEGATIVE_BALANCE']).findings.map((f) => [f.actual, f.detail])).toEqual([
      ['-410', 'ACTIVE card with balance -410 JPY'],
    ]);
  });

  it('writes the 0 a CANCELLED card holds as an amount of its currency', () => {
    const l = openLedger(temp, { currency: 'BHD' });
    const card = l.issue(l.offering(), { amount: '500.000' });
    card.switchTo('CANCEL', shift(HISTORY_AT, DAY));
    card.write({ balance: '5' });
    expect(runOn(l, ['CARD_BALANCE_MISMATCH']).findings.map((f) => [f.expected, f.detail])).toEqual(
      [['0.000', `CANCELLED card reports 5.000 BHD at ${READ_AT}; a CANCELLED card holds 0.000`]],
    );
  });

  it("writes a journal order's amount and an offering's load bounds in the currency's exponent", () => {
    const l = openLedger(temp);
    const offering = l.offering({ minLoadAmount: '10.0', maxLoadAmount: '50' });
    const small = l.issue(offering, { amount: '5' });
    small.write();
    const card = l.issue(l.offering(), { amount: '500.00' });
    const deposit = card.money('DEPOSIT', '100', shift(HISTORY_AT, DAY), { fee: '2.00' });
    const withdrawal = card.money('WITHDRAW', '4.1', shift(HISTORY_AT, 2 * DAY), { fee: '0.5' });
    const lost = card.money('DEPOSIT', '7.5', shift(CUTOFF, -2 * HOUR), { outcome: 'none' });
    card.write();
    const results = runOn(
      l,
      [
        'LOAD_OUT_OF_BOUNDS',
        'DEPOSIT_FEE_MISMATCH',
        'WITHDRAWAL_FEE_MISMATCH',
        'ORDER_NOT_REFLECTED',
      ],
      { cutoff: CUTOFF },
    );
    expect(results.findings.map((f) => [f.check, f.orderNo, f.detail]).sort()).toEqual(
      [
        [
          'LOAD_OUT_OF_BOUNDS',
          small.issueOrderNo,
          `ISSUE of 5.00 USD outside offering ${offering.id}'s [10.00, 50.00]`,
        ],
        [
          'DEPOSIT_FEE_MISMATCH',
          deposit.orderNo,
          `deposit of 100.00 USD at 1 % (offering ${card.offering.id}): 1.00 due, 2.00 charged`,
        ],
        [
          'WITHDRAWAL_FEE_MISMATCH',
          withdrawal.orderNo,
          'withdrawal of 4.10 USD charged a fee of 0.50; 0.00 is due',
        ],
        [
          'ORDER_NOT_REFLECTED',
          lost.orderNo,
          `DEPOSIT of 7.50 USD submitted ${shift(CUTOFF, -2 * HOUR)}: no FEE record by the cutoff ${CUTOFF}`,
        ],
      ].sort(),
    );
  });
});
