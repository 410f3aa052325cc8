import { describe, expect, it } from 'vitest';
import type { Card } from '../../src/contract/index.js';
import { CardWriter } from '../../src/mirror/card-writer.js';
import { card, context, useTempMirrors } from './mirror-fixtures.js';

const temp = useTempMirrors();

const RUN1 = context('run-1', '2026-02-01T02:00:00.000Z');
const RUN2 = context('run-2', '2026-02-02T02:00:00.000Z');
const RUN3 = context('run-3', '2026-02-03T02:00:00.000Z');

interface HistoryRow {
  runId: string;
  status: string;
  balance: string;
  balanceMinor: number | null;
  observedAt: string;
}

function setup() {
  const mirror = temp.open();
  const writer = new CardWriter(mirror.db);
  const row = (id = 'card-1') =>
    mirror.db.prepare('SELECT * FROM cards WHERE card_id = ?').get(id) as Record<string, unknown>;
  const history = (id = 'card-1') =>
    mirror.db
      .prepare(
        `SELECT run_id AS runId, status, balance, balance_minor AS balanceMinor,
           observed_at AS observedAt
         FROM card_history WHERE card_id = ? ORDER BY rowid`,
      )
      .all(id) as HistoryRow[];
  return { writer, row, history };
}

describe('CardWriter', () => {
  it('inserts a new card, counts it inserted and adds its first card_history row', () => {
    const { writer, row, history } = setup();
    expect(writer.write([card()], RUN1)).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(row()).toEqual({
      card_id: 'card-1',
      merchant_id: 'm-1',
      card_offering_id: 'off-1',
      last_four: '4242',
      status: 'ACTIVE',
      balance: '100.00',
      balance_minor: 10_000,
      currency: 'USD',
      created_at: '2026-01-01T00:00:00.000Z',
      observed_at: RUN1.observedAt,
      first_seen_at: RUN1.observedAt,
      updated_at: RUN1.observedAt,
      last_seen_run_id: 'run-1',
    });
    expect(history()).toEqual([
      {
        runId: 'run-1',
        status: 'ACTIVE',
        balance: '100.00',
        balanceMinor: 10_000,
        observedAt: RUN1.observedAt,
      },
    ]);
  });

  it('stamps an unchanged card with the new read and run but adds no history', () => {
    const { writer, row, history } = setup();
    writer.write([card()], RUN1);
    expect(writer.write([card()], RUN2)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(row()).toMatchObject({
      observed_at: RUN2.observedAt,
      last_seen_run_id: 'run-2',
      first_seen_at: RUN1.observedAt,
      updated_at: RUN1.observedAt,
    });
    expect(history()).toHaveLength(1);
  });

  it.each([
    [
      'currency',
      { currency: 'EUR', balance: '100.00' },
      { currency: 'EUR', balance_minor: 10_000 },
    ],
    ['offering', { cardOfferingId: 'off-2' }, { card_offering_id: 'off-2' }],
    ['last four digits', { lastFour: '1881' }, { last_four: '1881' }],
  ] as const)(
    'writes a changed %s though status and balance stay, with no history row',
    (_, changed: Partial<Card>, columns) => {
      const { writer, row, history } = setup();
      writer.write([card()], RUN1);
      writer.write([card(changed)], RUN2);
      expect(row()).toMatchObject({ ...columns, observed_at: RUN2.observedAt });
      expect(history()).toHaveLength(1);
    },
  );

  it('counts a balance change updated and adds exactly one history row for it', () => {
    const { writer, row, history } = setup();
    writer.write([card()], RUN1);
    writer.write([card()], RUN2);
    expect(writer.write([card({ balance: '75.50' })], RUN3)).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 0,
    });
    expect(row()).toMatchObject({
      balance: '75.50',
      balance_minor: 7550,
      updated_at: RUN3.observedAt,
      observed_at: RUN3.observedAt,
      last_seen_run_id: 'run-3',
    });
    expect(history().map((h) => [h.runId, h.balance])).toEqual([
      ['run-1', '100.00'],
      ['run-3', '75.50'],
    ]);
  });

  it('counts a status change updated and records the new status in history', () => {
    const { writer, history } = setup();
    writer.write([card()], RUN1);
    expect(writer.write([card({ status: 'FROZEN' })], RUN2).updated).toBe(1);
    expect(history().map((h) => h.status)).toEqual(['ACTIVE', 'FROZEN']);
  });

  it('counts inserted, updated and unchanged cards of one batch apart', () => {
    const { writer } = setup();
    writer.write([card({ cardId: 'a' }), card({ cardId: 'b' })], RUN1);
    const counts = writer.write(
      [card({ cardId: 'a' }), card({ cardId: 'b', balance: '1.00' }), card({ cardId: 'c' })],
      RUN2,
    );
    expect(counts).toEqual({ inserted: 1, updated: 1, unchanged: 1 });
  });

  it('counts a card read twice at the same instant (a re-read list) inserted only once', () => {
    const { writer, history } = setup();
    expect(writer.write([card()], RUN1)).toEqual({ inserted: 1, updated: 0, unchanged: 0 });
    expect(writer.write([card()], RUN1)).toEqual({ inserted: 0, updated: 0, unchanged: 1 });
    expect(writer.write([card({ balance: '90.00' })], RUN1)).toEqual({
      inserted: 0,
      updated: 1,
      unchanged: 0,
    });
    expect(history()).toHaveLength(2);
  });

  it('compares a page with the stored cards of its span, and finds the others by id', () => {
    const { writer, row } = setup();
    const at = (day: number) => `2026-01-${String(day).padStart(2, '0')}T00:00:00.000Z`;
    const stored = Array.from({ length: 20 }, (_, i) =>
      card({ cardId: `c-${i}`, createdAt: at(i + 1) }),
    );
    writer.write(stored, RUN1);
    writer.write(
      [card({ cardId: 'other', createdAt: at(6) })],
      context('run-1', RUN1.observedAt, 'm-2'),
    );
    // Days 5 to 9 read again, one with a new balance; then cards the span's read cannot find:
    // one whose createdAt moved, a new one, and one the mirror holds under another merchant
    // (left as it is, for the caller to quarantine).
    const page = [
      stored[4] as Card,
      stored[5] as Card,
      card({ cardId: 'c-6', createdAt: at(7), balance: '1.00' }),
      stored[7] as Card,
      stored[8] as Card,
      card({ cardId: 'c-15', createdAt: at(8) }),
      card({ cardId: 'new', createdAt: at(8) }),
      card({ cardId: 'other', createdAt: at(6) }),
    ];
    expect(writer.write(page, RUN2)).toEqual({
      inserted: 1,
      updated: 1,
      unchanged: 5,
      conflicting: [
        {
          resource: 'cards',
          recordId: 'other',
          reason: '/cardId other is a card of merchant m-2 in the mirror, not of m-1',
          raw: page[7],
        },
      ],
    });
    expect(row('c-4')).toMatchObject({ observed_at: RUN2.observedAt, last_seen_run_id: 'run-2' });
    expect(row('c-6')).toMatchObject({ balance: '1.00', last_seen_run_id: 'run-2' });
    expect(row('c-15')).toMatchObject({ created_at: at(8), last_seen_run_id: 'run-2' });
    expect(row('other')).toMatchObject({ merchant_id: 'm-2', last_seen_run_id: 'run-1' });
    expect(row('c-3')).toMatchObject({ last_seen_run_id: 'run-1' });
    expect(row('c-9')).toMatchObject({ last_seen_run_id: 'run-1' });
  });

  it('counts exactly when the span holds far more stored cards than the page reads back', () => {
    const { writer } = setup();
    const stored = Array.from({ length: 300 }, (_, i) => card({ cardId: `c-${i}` }));
    writer.write(stored, RUN1);
    const page = stored.filter((_, i) => i % 30 === 0);
    page[0] = card({ cardId: 'c-0', balance: '5.00' });
    expect(writer.write(page, RUN2)).toEqual({ inserted: 0, updated: 1, unchanged: 9 });
  });

  it('compares a second copy of a card in one page with what the first copy wrote', () => {
    const { writer, history } = setup();
    writer.write([card()], RUN1);
    const counts = writer.write([card({ balance: '90.00' }), card({ balance: '90.00' })], RUN2);
    expect(counts).toEqual({ inserted: 0, updated: 1, unchanged: 1 });
    expect(history().map((h) => h.balance)).toEqual(['100.00', '90.00']);
  });

  it('writes the merchant of the context and NULL balance_minor for a too-precise balance', () => {
    const { writer, row } = setup();
    writer.write([card({ balance: '10.001' })], context('run-1', RUN1.observedAt, 'm-9'));
    expect(row()).toMatchObject({ merchant_id: 'm-9', balance: '10.001', balance_minor: null });
  });
});
