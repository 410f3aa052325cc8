import { describe, expect, it } from 'vitest';
import type { Transaction } from '../../src/contract/index.js';
import { TransactionWriter } from '../../src/mirror/transaction-writer.js';
import { context, transaction, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const RUN1 = context('run-1', '2026-01-11T02:00:00.000Z');
const RUN2 = context('run-2', '2026-01-12T02:00:00.000Z');

interface StatusChange {
  fromStatus: string;
  toStatus: string;
  observedAt: string;
  runId: string;
  merchantId: string;
}

function setup() {
  const mirror = temp.open();
  const writer = new TransactionWriter(mirror.db);
  const row = (id: string) =>
    mirror.db.prepare('SELECT * FROM transactions WHERE transaction_id = ?').get(id) as Record<
      string,
      unknown
    >;
  const changes = (id: string) =>
    mirror.db
      .prepare(
        `SELECT from_status AS fromStatus, to_status AS toStatus, observed_at AS observedAt,
           run_id AS runId, merchant_id AS merchantId
         FROM transaction_status_changes WHERE transaction_id = ? ORDER BY rowid`,
      )
      .all(id) as StatusChange[];
  return { mirror, writer, row, changes };
}

describe('TransactionWriter', () => {
  it('inserts new rows with the merchant, run and read time, and counts them inserted', () => {
    const { writer, row } = setup();
    const counts = writer.write(
      [transaction({ transactionId: 'tx-1' }), transaction({ transactionId: 'tx-2' })],
      RUN1,
    );
    expect(counts).toEqual({ inserted: 2, updated: 0, unchanged: 0 });
    expect(row('tx-1')).toEqual({
      transaction_id: 'tx-1',
      merchant_id: 'm-1',
      card_id: 'card-1',
      trade_no: 'trade-1',
      type: 'PURCHASE',
      status: 'PENDING',
      amount: '12.50',
      amount_minor: 1250,
      fee: '0.25',
      fee_minor: 25,
      currency: 'USD',
      merchant_name: 'Corner Shop',
      created_at: '2026-01-10T09:00:00.000Z',
      first_seen_at: RUN1.observedAt,
      updated_at: RUN1.observedAt,
      updated_run_id: 'run-1',
    });
  });

  it('counts identical rows unchanged on a later run and leaves updated_at and the run alone', () => {
    const { writer, row, changes } = setup();
    writer.write([transaction()], RUN1);
    const before = row('tx-1');
    expect(writer.write([transaction()], RUN2)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(row('tx-1')).toEqual(before);
    expect(row('tx-1')).toMatchObject({ updated_at: RUN1.observedAt, updated_run_id: 'run-1' });
    expect(changes('tx-1')).toEqual([]);
  });

  it('updates a status change, stamps updated_at/updated_run_id and logs exactly one change', () => {
    const { writer, row, changes } = setup();
    writer.write([transaction({ status: 'PENDING' })], RUN1);
    const counts = writer.write([transaction({ status: 'COMPLETED' })], RUN2);
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    expect(row('tx-1')).toMatchObject({
      status: 'COMPLETED',
      first_seen_at: RUN1.observedAt,
      updated_at: RUN2.observedAt,
      updated_run_id: 'run-2',
    });
    expect(changes('tx-1')).toEqual([
      {
        fromStatus: 'PENDING',
        toStatus: 'COMPLETED',
        observedAt: RUN2.observedAt,
        runId: 'run-2',
        merchantId: 'm-1',
      },
    ]);
  });

  it('records each later status change once, in order, and none for a re-read', () => {
    const { writer, changes } = setup();
    writer.write([transaction({ status: 'PENDING' })], RUN1);
    writer.write([transaction({ status: 'COMPLETED' })], RUN2);
    writer.write(
      [transaction({ status: 'COMPLETED' })],
      context('run-3', '2026-01-13T02:00:00.000Z'),
    );
    writer.write(
      [transaction({ status: 'SETTLED' })],
      context('run-4', '2026-01-14T02:00:00.000Z'),
    );
    expect(changes('tx-1').map((c) => `${c.fromStatus}>${c.toStatus}`)).toEqual([
      'PENDING>COMPLETED',
      'COMPLETED>SETTLED',
    ]);
  });

  it('updates a changed amount or fee without logging a status change', () => {
    const { writer, row, changes } = setup();
    writer.write([transaction()], RUN1);
    const counts = writer.write([transaction({ amount: '13.00', fee: '0.30' })], RUN2);
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 0 });
    expect(row('tx-1')).toMatchObject({
      amount: '13.00',
      amount_minor: 1300,
      fee: '0.30',
      fee_minor: 30,
      updated_at: RUN2.observedAt,
    });
    expect(changes('tx-1')).toEqual([]);
  });

  it('counts a mixed batch of new, changed and unchanged rows', () => {
    const { writer } = setup();
    writer.write([transaction({ transactionId: 'a' }), transaction({ transactionId: 'b' })], RUN1);
    const counts = writer.write(
      [
        transaction({ transactionId: 'a' }),
        transaction({ transactionId: 'b', status: 'DECLINED' }),
        transaction({ transactionId: 'c' }),
      ],
      RUN2,
    );
    expect(counts).toEqual({ inserted: 1, updated: 1, unchanged: 1 });
  });

  it('counts a row that changed between two reads at the same instant updated, not inserted', () => {
    const { writer, changes } = setup();
    // One window's pages, stamped alike, can show a transaction before and after it moved.
    const counts = writer.write(
      [transaction({ status: 'PENDING' }), transaction({ status: 'COMPLETED' })],
      RUN1,
    );
    expect(counts).toEqual({ inserted: 1, updated: 1, unchanged: 0 });
    expect(writer.write([transaction({ status: 'COMPLETED' })], RUN1)).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 1,
    });
    expect(changes('tx-1')).toHaveLength(1);
  });

  const MINOR_CASES: {
    label: string;
    amount: string;
    currency: string;
    minor: number | null;
  }[] = [
    { label: 'USD 12.50 is 1250 cents', amount: '12.50', currency: 'USD', minor: 1250 },
    { label: 'JPY 1000 is 1000 yen (exponent 0)', amount: '1000', currency: 'JPY', minor: 1000 },
    { label: 'KWD 1.234 is 1234 fils (exponent 3)', amount: '1.234', currency: 'KWD', minor: 1234 },
    { label: 'USD -3.10 is -310 (a reversal)', amount: '-3.10', currency: 'USD', minor: -310 },
    { label: 'USD 1.005 is too precise: NULL', amount: '1.005', currency: 'USD', minor: null },
    { label: 'USD 1.500 has a third digit: NULL', amount: '1.500', currency: 'USD', minor: null },
    { label: 'JPY 10.5 has a fraction: NULL', amount: '10.5', currency: 'JPY', minor: null },
    { label: 'an unknown currency: NULL', amount: '12.50', currency: 'XYZ', minor: null },
  ];

  it.each(MINOR_CASES)(
    'stores amount_minor and fee_minor: $label, keeping the text exactly',
    ({ amount, currency, minor }) => {
      const { writer, row } = setup();
      const tx: Transaction = transaction({ amount, fee: amount, currency });
      writer.write([tx], RUN1);
      expect(row('tx-1')).toMatchObject({
        amount,
        amount_minor: minor,
        fee: amount,
        fee_minor: minor,
        currency,
      });
    },
  );

  it('keeps each money column of a row independent: a precise fee beside a too-precise amount', () => {
    const { writer, row } = setup();
    writer.write([transaction({ amount: '1.005', fee: '0.01' })], RUN1);
    expect(row('tx-1')).toMatchObject({ amount_minor: null, fee_minor: 1 });
  });
});
