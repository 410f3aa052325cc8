import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrateMirror, readMigrations } from '../../src/mirror/migrations.js';
import { openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { offering, useTempMirrors } from '../mirror/mirror-fixtures.js';
import { runOn } from './support/run-one.js';
import { DAY, HISTORY_AT, HOUR, shift, TestLedger } from './support/test-ledger.js';

const temp = useTempMirrors();
const MERCHANT = 'mch_old';

const OFFERING = offering({ id: 'off_old', name: 'Test Visa', depositFeePercent: '1' });

const day = (n: number) => shift(HISTORY_AT, n * DAY);

/**
 * A mirror written by a cardsync of schema 17, before sql/018: nightly runs on days 0 to 5 read
 * the offering and the merchant balance; the issuance fee went from 2.00 to 3.00 between the
 * reads of day 1 and day 5 (no run on days 2 to 4), and the version of day 5 was recorded with
 * no word of when the terms before it were last seen. Then upgraded by today's cardsync.
 */
function upgradedMirror(): TestLedger {
  const file = join(temp.dir(), 'v17.sqlite');
  const old = new Database(file);
  migrateMirror(old, readMigrations().slice(0, 17));
  const version = old.prepare(
    `INSERT INTO offering_versions (id, version, merchant_id, name, network, type, currency,
       min_load_amount, min_load_amount_minor, max_load_amount, max_load_amount_minor,
       issuance_fee, issuance_fee_minor, deposit_fee_percent, requires_holder, observed_at, run_id)
     VALUES (@id, @version, @merchant, 'Test Visa', 'VISA', 'VIRTUAL', 'USD', '10.00', 1000,
       '5000.00', 500000, @fee, @feeMinor, '1', 0, @at, @run)`,
  );
  version.run({
    id: OFFERING.id,
    version: 1,
    merchant: MERCHANT,
    fee: '2.00',
    feeMinor: 200,
    at: day(0),
    run: 'run-0',
  });
  version.run({
    id: OFFERING.id,
    version: 2,
    merchant: MERCHANT,
    fee: '3.00',
    feeMinor: 300,
    at: day(5),
    run: 'run-5',
  });
  old
    .prepare(
      `INSERT INTO offerings (id, version, merchant_id, name, network, type, currency,
         min_load_amount, min_load_amount_minor, max_load_amount, max_load_amount_minor,
         issuance_fee, issuance_fee_minor, deposit_fee_percent, requires_holder,
         first_seen_at, updated_at, last_seen_at)
       VALUES (?, 2, ?, 'Test Visa', 'VISA', 'VIRTUAL', 'USD', '10.00', 1000, '5000.00', 500000,
         '3.00', 300, '1', 0, ?, ?, ?)`,
    )
    .run(OFFERING.id, MERCHANT, day(0), day(5), day(5));
  const balance = old.prepare(
    `INSERT INTO merchant_balances (merchant_id, run_id, balance, balance_minor, currency, observed_at)
     VALUES (?, ?, '1000.00', 100000, 'USD', ?)`,
  );
  // Each run's balance read lands beside its offerings read, a few milliseconds apart.
  balance.run(MERCHANT, 'run-0', shift(day(0), -3));
  balance.run(MERCHANT, 'run-1', shift(day(1), 4));
  balance.run(MERCHANT, 'run-5', shift(day(5), -2));
  old.close();
  const mirror = openMirror(file);
  temp.defer(() => mirror.close());
  return new TestLedger(mirror.db, { merchantId: MERCHANT });
}

describe('offering versions recorded before sql/018, in a mirror upgraded since', () => {
  it('know when the terms before them were last seen: the last other run that read them', () => {
    const l = upgradedMirror();
    expect(
      l.db
        .prepare('SELECT version, previous_seen_at FROM offering_versions ORDER BY version')
        .all(),
    ).toEqual([
      { version: 1, previous_seen_at: null },
      { version: 2, previous_seen_at: shift(day(1), 4) },
    ]);
  });

  it('accept the new issuance fee for an order submitted after the old terms were last seen, as a newer mirror does', () => {
    const l = upgradedMirror();
    const issue = (fee: string, at: string) => {
      const card = l.issue(OFFERING, { fee, at });
      card.write();
      return card.issueOrderNo;
    };
    const beforeChange = issue('3.00', shift(day(1), -HOUR)); // the old terms were seen after it
    issue('3.00', day(3)); // on either terms: right
    issue('2.00', day(3));
    const neither = issue('2.50', day(3));
    const findings = runOn(l, ['ISSUANCE_FEE_MISMATCH']).findings;
    expect(findings.map((f) => [f.orderNo, f.expected, f.actual])).toEqual(
      expect.arrayContaining([
        [beforeChange, '2.00', '3.00'],
        [neither, '2.00', '2.50'],
      ]),
    );
    expect(findings).toHaveLength(2);
  });
});
