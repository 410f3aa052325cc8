import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';
import { HISTORY_AT, shift, TestLedger } from '../recon/support/test-ledger.js';
import { runCliProcess } from '../support/cli-process.js';
import { readCsv } from './job-fixture.js';

const temp = useTempMirrors();
const DAY2 = shift(HISTORY_AT, 2 * 86_400_000);
/** 2^53 - 1 cents, the largest amount the sync takes: 1,025 of them pass SQLite's 2^63. */
const HUGE = '90071992547409.91';

/** A report cell as its value: one leading `'` (a neutralised `-...`) dropped. */
const value = (cell: string | undefined) => (cell?.startsWith("'") ? cell.slice(1) : cell);

describe('cardsync reconcile, with sums past the range of SQLite integers', () => {
  it('writes its report with exact amounts and the other findings when one trade and one card pass 2^63 minor units', async () => {
    const mirror = temp.open();
    const l = new TestLedger(mirror.db);
    // A trade refunded 1,025 times, each refund a valid amount (and each another amount: no
    // DUPLICATE_TRANSACTION): its sums and its card's ledger pass 2^63 - 1 minor units.
    const big = l.issue(l.offering(), { amount: '500.00' });
    const purchase = big.activity({ amount: '1.00', createdAt: DAY2 });
    big.activities(
      Array.from({ length: 1025 }, (_, i) => ({
        type: 'REFUND' as const,
        amount: l.text(l.minor(HUGE) - BigInt(i)),
        tradeNo: purchase.tradeNo,
        createdAt: DAY2,
      })),
    );
    const ledger = big.balance;
    big.write({ balance: '497.00' });
    // Findings of the same checks elsewhere, which the run must still report.
    const other = l.issue(l.offering(), { amount: '500.00' });
    const small = other.activity({ amount: '5.00', createdAt: DAY2 });
    other.activity({ type: 'REFUND', amount: '6.00', tradeNo: small.tradeNo, createdAt: DAY2 });
    expect(l.text(other.balance)).toBe('499.00');
    other.write({ balance: '499.50' });
    await mirror.close();

    const result = await runCliProcess(['reconcile', '--json'], {
      CARDSYNC_DB: join(temp.dir(), 'mirror.sqlite'),
      CARDSYNC_REPORTS_DIR: join(temp.dir(), 'reports'),
    });
    expect(result.code, result.stderr).toBe(0);
    const { reportDir } = JSON.parse(result.stdout) as { reportDir: string };
    const rows = readCsv(join(reportDir, 'discrepancies.csv')).map((r) => [
      r.check,
      r.card_id,
      r.trade_no,
      value(r.expected),
      value(r.actual),
      value(r.delta),
    ]);
    const returned = 1025n * l.minor(HUGE) - (1024n * 1025n) / 2n;
    expect(rows).toEqual([
      [
        'CARD_BALANCE_MISMATCH',
        big.cardId,
        '',
        l.text(ledger),
        '497.00',
        l.text(l.minor('497.00') - ledger),
      ],
      ['CARD_BALANCE_MISMATCH', other.cardId, '', '499.00', '499.50', '0.50'],
      [
        'OVER_REFUND',
        big.cardId,
        purchase.tradeNo,
        '1.00',
        l.text(returned),
        l.text(returned - 100n),
      ],
      ['OVER_REFUND', other.cardId, small.tradeNo, '5.00', '6.00', '1.00'],
    ]);
    expect(returned).toBeGreaterThan(2n ** 63n);
    // The analysts' views leave such a card unchecked rather than failing (sql/014).
    const after = temp.open();
    expect(
      after.db
        .prepare('SELECT check_result FROM card_balance_check ORDER BY card_id')
        .pluck()
        .all(),
    ).toEqual(['unchecked', 'mismatch']);
    expect(after.db.prepare('SELECT count(*) FROM open_findings').pluck().get()).toBe(4);
  });
});
