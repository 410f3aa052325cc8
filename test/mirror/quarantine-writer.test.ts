import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CardWriter } from '../../src/mirror/card-writer.js';
import { type QuarantinedRecord, QuarantineWriter } from '../../src/mirror/quarantine-writer.js';
import { RunStore } from '../../src/mirror/run-store.js';
import { TransactionWriter } from '../../src/mirror/transaction-writer.js';
import { card, context, transaction, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const RUN1 = context('run-1', '2026-02-01T02:00:00.000Z');
const RUN2 = context('run-2', '2026-02-02T02:00:00.000Z');

function malformedTransaction(id: string, amount: unknown = 'twelve'): QuarantinedRecord {
  return {
    resource: 'transactions',
    recordId: id,
    reason: '/amount must match pattern',
    raw: { transactionId: id, amount },
  };
}

function setup() {
  const mirror = temp.open();
  const rows = () =>
    mirror.db.prepare('SELECT * FROM quarantine ORDER BY quarantine_id').all() as Record<
      string,
      unknown
    >[];
  return {
    quarantine: new QuarantineWriter(mirror.db),
    transactions: new TransactionWriter(mirror.db),
    cards: new CardWriter(mirror.db),
    /** A window of `run` over the day of the fixtures' transactions, as landing one records it. */
    readDay: (run: typeof RUN1) =>
      new RunStore(mirror.db).addWindow({
        runId: run.runId,
        merchantId: run.merchantId,
        kind: 'history',
        startAt: '2026-01-10T00:00:00.000Z',
        endAt: '2026-01-10T23:59:59.999Z',
        filter: null,
        expected: 1,
        fetched: 1,
        upserted: 1,
        attempts: 1,
        durationMs: 1,
        outcome: 'done',
        finishedAt: run.observedAt,
      }),
    rows,
  };
}

describe('QuarantineWriter', () => {
  it('keeps the raw JSON, its sha256 and the reason of a malformed record', () => {
    const { quarantine, rows } = setup();
    expect(quarantine.write([malformedTransaction('tx-1')], RUN1)).toBe(1);
    const raw = JSON.stringify({ transactionId: 'tx-1', amount: 'twelve' });
    expect(rows()).toEqual([
      {
        quarantine_id: 1,
        merchant_id: 'm-1',
        resource: 'transactions',
        record_id: 'tx-1',
        reason: '/amount must match pattern',
        raw_json: raw,
        raw_sha256: createHash('sha256').update(raw).digest('hex'),
        first_seen_at: RUN1.observedAt,
        last_seen_at: RUN1.observedAt,
        last_run_id: 'run-1',
        seen_count: 1,
        resolved_at: null,
      },
    ]);
  });

  it('keeps the same raw record seen twice as one row with seen_count 2', () => {
    const { quarantine, rows } = setup();
    quarantine.write([malformedTransaction('tx-1')], RUN1);
    expect(quarantine.write([malformedTransaction('tx-1')], RUN2)).toBe(0);
    expect(rows()).toEqual([
      expect.objectContaining({
        seen_count: 2,
        first_seen_at: RUN1.observedAt,
        last_seen_at: RUN2.observedAt,
        last_run_id: 'run-2',
      }),
    ]);
  });

  it('keeps a different raw version of the same record as a row of its own', () => {
    const { quarantine, rows } = setup();
    const fresh = quarantine.write(
      [malformedTransaction('tx-1', 'twelve'), malformedTransaction('tx-1', 'thirteen')],
      RUN1,
    );
    expect(fresh).toBe(2);
    expect(rows()).toHaveLength(2);
  });

  it('quarantines a record without an id or with an undefined raw body', () => {
    const { quarantine, rows } = setup();
    quarantine.write([{ resource: 'merchant_balance', reason: 'not JSON', raw: undefined }], RUN1);
    expect(rows()).toEqual([expect.objectContaining({ record_id: null, raw_json: 'null' })]);
  });

  it('resolves a quarantined transaction the mirror now holds and this run did not see malformed', () => {
    const { quarantine, transactions, readDay, rows } = setup();
    quarantine.write([malformedTransaction('tx-1')], RUN1);
    transactions.write([transaction({ transactionId: 'tx-1' })], RUN2);
    readDay(RUN2);
    expect(quarantine.resolveRepaired(RUN2)).toBe(1);
    expect(rows()[0]).toMatchObject({ record_id: 'tx-1', resolved_at: RUN2.observedAt });
  });

  it('leaves unresolved a quarantined transaction mirrored before that no window of this run read', () => {
    const { quarantine, transactions, rows } = setup();
    transactions.write([transaction({ transactionId: 'tx-1' })], RUN1);
    quarantine.write([malformedTransaction('tx-1')], RUN1);
    expect(quarantine.resolveRepaired(RUN2)).toBe(0);
    expect(rows()[0]).toMatchObject({ resolved_at: null });
  });

  it('leaves unresolved a record seen malformed again in the current run', () => {
    const { quarantine, transactions, rows } = setup();
    quarantine.write([malformedTransaction('tx-1')], RUN1);
    transactions.write([transaction({ transactionId: 'tx-1' })], RUN1);
    quarantine.write([malformedTransaction('tx-1')], RUN2);
    expect(quarantine.resolveRepaired(RUN2)).toBe(0);
    expect(rows()[0]).toMatchObject({ resolved_at: null, seen_count: 2 });
  });

  it('leaves unresolved a quarantined transaction the mirror still lacks', () => {
    const { quarantine, transactions, rows } = setup();
    quarantine.write([malformedTransaction('tx-1')], RUN1);
    transactions.write([transaction({ transactionId: 'tx-other' })], RUN2);
    expect(quarantine.resolveRepaired(RUN2)).toBe(0);
    expect(rows()[0]).toMatchObject({ resolved_at: null });
  });

  it('resolves a repaired card and only the given merchant quarantine', () => {
    const { quarantine, cards, rows } = setup();
    const badCard = (id: string): QuarantinedRecord => ({
      resource: 'cards',
      recordId: id,
      reason: '/lastFour',
      raw: { cardId: id },
    });
    quarantine.write([badCard('card-1')], RUN1);
    quarantine.write([badCard('card-1')], context('run-1', RUN1.observedAt, 'm-2'));
    cards.write([card({ cardId: 'card-1' })], RUN2);
    expect(quarantine.resolveRepaired(RUN2)).toBe(1);
    expect(rows().map((r) => [r.merchant_id, r.resolved_at])).toEqual([
      ['m-1', RUN2.observedAt],
      ['m-2', null],
    ]);
  });

  it('reopens a resolved record when the malformed version comes back', () => {
    const { quarantine, transactions, rows } = setup();
    quarantine.write([malformedTransaction('tx-1')], RUN1);
    transactions.write([transaction({ transactionId: 'tx-1' })], RUN2);
    quarantine.resolveRepaired(RUN2);
    quarantine.write([malformedTransaction('tx-1')], context('run-3', '2026-02-03T02:00:00.000Z'));
    expect(rows()[0]).toMatchObject({ resolved_at: null, seen_count: 2, last_run_id: 'run-3' });
  });
});
