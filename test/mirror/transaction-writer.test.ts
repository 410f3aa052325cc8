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

  // The writer compares a batch with the mirror's rows over the span of its createdAts first;
  // a row differing in any column the upsert compares must still be written.
  const CHANGED_COLUMNS: { column: string; change: Partial<Transaction> }[] = [
    { column: 'card_id', change: { cardId: 'card-2' } },
    { column: 'trade_no', change: { tradeNo: 'trade-2' } },
    { column: 'type', change: { type: 'REFUND' } },
    { column: 'status', change: { status: 'COMPLETED' } },
    { column: 'amount', change: { amount: '12.51' } },
    { column: 'fee', change: { fee: '0.26' } },
    { column: 'currency', change: { currency: 'EUR' } },
    { column: 'merchant_name', change: { merchantName: 'Corner Shop 2' } },
  ];

  it.each(CHANGED_COLUMNS)('writes a re-read row whose $column changed', ({ change }) => {
    const { writer, row } = setup();
    const others = Array.from({ length: 5 }, (_, i) => transaction({ transactionId: `o-${i}` }));
    writer.write([transaction(), ...others], RUN1);
    const counts = writer.write([...others, transaction(change)], RUN2);
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 5 });
    expect(row('tx-1')).toMatchObject({ updated_run_id: 'run-2' });
    expect(row('o-0')).toMatchObject({ updated_run_id: 'run-1' });
  });

  it('leaves a row when one read under its id has another createdAt, out of the span of the stored rows or in it, and returns that one to quarantine', () => {
    const { writer, row } = setup();
    writer.write([transaction({ createdAt: '2026-01-10T09:00:00.000Z' })], RUN1);
    // A createdAt never changes (reference-model section 7): two records share the id, and
    // writing the second would lose the first.
    const later = transaction({ createdAt: '2026-01-10T09:00:00.001Z', amount: '3.00' });
    const inSpan = transaction({ transactionId: 'tx-2', createdAt: '2026-01-10T09:00:00.000Z' });
    const counts = writer.write([later, inSpan, { ...later, transactionId: 'tx-3' }], RUN2);
    expect(counts).toEqual({
      inserted: 2,
      updated: 0,
      unchanged: 0,
      conflicting: [
        {
          resource: 'transactions',
          recordId: 'tx-1',
          reason:
            '/createdAt 2026-01-10T09:00:00.001Z of transaction tx-1, which the mirror holds created at 2026-01-10T09:00:00.000Z: a createdAt never changes, so two records share the id',
          raw: later,
        },
      ],
    });
    expect(row('tx-1')).toMatchObject({ created_at: '2026-01-10T09:00:00.000Z', amount: '12.50' });
    // Within the span of the stored rows as well.
    const earlier = transaction({ createdAt: '2026-01-10T08:59:59.999Z' });
    const both = writer.write([earlier, { ...later, transactionId: 'tx-3' }], RUN2);
    expect(both.conflicting?.map((c) => c.recordId)).toEqual(['tx-1']);
    expect(row('tx-1')).toMatchObject({ created_at: '2026-01-10T09:00:00.000Z' });
  });

  it("leaves a row the mirror holds under another merchant, which the span's read leaves out, and returns it to quarantine", () => {
    const { writer, row } = setup();
    writer.write([transaction()], context('run-1', RUN1.observedAt, 'm-2'));
    const read = transaction({ amount: '9.99' });
    expect(writer.write([read], RUN2)).toEqual({
      inserted: 0,
      updated: 0,
      unchanged: 0,
      conflicting: [
        {
          resource: 'transactions',
          recordId: 'tx-1',
          reason: '/transactionId tx-1 is a transaction of merchant m-2 in the mirror, not of m-1',
          raw: read,
        },
      ],
    });
    expect(row('tx-1')).toMatchObject({ merchant_id: 'm-2', amount: transaction().amount });
  });

  it('counts exactly when the span holds far more stored rows than the batch reads back', () => {
    const { writer, mirror } = setup();
    // 600 stored rows at one instant; a re-read of 40 of them (a status-filtered audit window)
    // reads at most 180 back, so most of the batch goes through the upsert.
    const stored = Array.from({ length: 600 }, (_, i) =>
      transaction({ transactionId: `s-${String(i).padStart(3, '0')}` }),
    );
    writer.write(stored, RUN1);
    const reread = stored.filter((_, i) => i % 15 === 0);
    const moved = reread.slice(0, 3).map((t) => ({ ...t, status: 'COMPLETED' as const }));
    const batch = [...moved, ...reread.slice(3), transaction({ transactionId: 'new-1' })];
    expect(writer.write(batch, RUN2)).toEqual({ inserted: 1, updated: 3, unchanged: 37 });
    const completed = mirror.db
      .prepare("SELECT count(*) FROM transactions WHERE status = 'COMPLETED'")
      .pluck()
      .get();
    expect(completed).toBe(3);
  });

  it('writes the later of two versions of a row in one batch, even when it is the stored one', () => {
    const { writer, row, changes } = setup();
    writer.write([transaction({ status: 'PENDING' })], RUN1);
    const counts = writer.write(
      [transaction({ status: 'COMPLETED' }), transaction({ status: 'PENDING' })],
      RUN2,
    );
    expect(counts).toEqual({ inserted: 0, updated: 2, unchanged: 0 });
    expect(row('tx-1')).toMatchObject({ status: 'PENDING' });
    expect(changes('tx-1')).toHaveLength(2);
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
