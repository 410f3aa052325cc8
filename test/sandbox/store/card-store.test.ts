import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CardStatus } from '../../../src/contract/index.js';
import { openSandboxDatabase, type SandboxDatabase } from '../../../src/sandbox/store/database.js';
import type { CardRecord } from '../../../src/sandbox/store/records.js';
import { SandboxStore } from '../../../src/sandbox/store/sandbox-store.js';

const STATUSES: readonly CardStatus[] = [
  'PENDING',
  'ACTIVE',
  'FREEZING',
  'FROZEN',
  'UNFREEZING',
  'CANCELLING',
  'CANCELLED',
  'FAILED',
  'BLOCKED',
];
const MERCHANTS = ['mch_a', 'mch_b'] as const;
const BASE = Date.parse('2026-03-01T00:00:00.000Z');

/** A small seeded generator (mulberry32), so a failing sequence replays. */
function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
  };
}

/** What SQLite answers on its own: how the store paged before it kept an index. */
function sqlitePage(
  db: SandboxDatabase,
  merchantId: string,
  status: CardStatus | undefined,
  offset: number,
  limit: number,
): { ids: string[]; total: number } {
  const where = status ? 'merchant_id = ? AND status = ?' : 'merchant_id = ?';
  const params = status ? [merchantId, status] : [merchantId];
  const { total } = db
    .prepare(`SELECT count(*) AS total FROM cards WHERE ${where}`)
    .get(...params) as {
    total: number;
  };
  const ids = (
    db
      .prepare(
        `SELECT card_id AS id FROM cards WHERE ${where} ORDER BY created_at DESC, card_id DESC LIMIT ? OFFSET ?`,
      )
      .all(...params, limit, offset) as { id: string }[]
  ).map((r) => r.id);
  return { ids, total };
}

function card(
  cardId: string,
  merchantId: string,
  createdAt: number,
  status: CardStatus,
): CardRecord {
  return {
    cardId,
    merchantId,
    offeringId: 'off_x',
    holderId: null,
    lastFour: '4242',
    status,
    balanceMinor: 0,
    currency: 'USD',
    createdAt,
    cardNumber: '4000000000004242',
    cvv: '123',
    expiryMonth: '01',
    expiryYear: '2030',
  };
}

describe('card store paging', () => {
  let db: SandboxDatabase;
  let store: SandboxStore;

  beforeEach(() => {
    db = openSandboxDatabase(undefined);
    store = new SandboxStore(db);
    for (const merchantId of MERCHANTS) {
      store.merchants.insert({
        merchantId,
        name: merchantId,
        currency: 'USD',
        balanceMinor: 0,
        createdAt: BASE,
      });
    }
  });
  afterEach(() => db.close());

  /** Every window of every list (each merchant, each filter) agrees with SQLite's answer. */
  function expectSameAsSqlite(): void {
    for (const merchantId of MERCHANTS) {
      for (const status of [undefined, ...STATUSES]) {
        const { total } = sqlitePage(db, merchantId, status, 0, 1);
        for (const [offset, limit] of [
          [0, 1],
          [0, 7],
          [3, 5],
          [Math.max(0, total - 4), 10],
          [total, 5],
          [total + 30, 5],
        ] as const) {
          const expected = sqlitePage(db, merchantId, status, offset, limit);
          const page = store.cards.page(merchantId, status, { offset, limit });
          expect(
            { ids: page.rows.map((r) => r.cardId), total: page.total },
            `${merchantId} ${status ?? 'all'} offset ${offset} limit ${limit}`,
          ).toEqual(expected);
        }
      }
    }
  }

  it('answers every page, total and status filter exactly as SQLite ordering and counting would, through inserts and status changes', () => {
    const draw = seeded(7);
    const ids: string[] = [];
    const insertOne = () => {
      // Few distinct instants, ids in no particular order: ties and inserts in the middle.
      const id = `card_${draw(1 << 30)
        .toString(16)
        .padStart(8, '0')}${ids.length}`;
      const merchantId = MERCHANTS[draw(MERCHANTS.length)] as string;
      store.cards.insert(
        card(id, merchantId, BASE + draw(12) * 60_000, STATUSES[draw(3)] as CardStatus),
      );
      ids.push(id);
    };
    for (let i = 0; i < 40; i++) insertOne();
    expectSameAsSqlite(); // builds the index from what SQLite holds
    for (let step = 0; step < 120; step++) {
      if (draw(3) === 0) insertOne();
      else {
        const id = ids[draw(ids.length)] as string;
        store.cards.setStatus(id, STATUSES[draw(STATUSES.length)] as CardStatus);
      }
      if (step % 10 === 0) expectSameAsSqlite();
    }
    expectSameAsSqlite();
    const full = store.cards.page('mch_a', undefined, { offset: 0, limit: 1_000 }).rows;
    expect(full.map((r) => r.status)).toEqual(full.map((r) => store.cards.get(r.cardId)?.status));
  });

  it('lists a card added between two page reads first, and shifts every later page by one', () => {
    for (let i = 0; i < 5; i++) store.cards.insert(card(`card_${i}`, 'mch_a', BASE + i, 'ACTIVE'));
    const first = store.cards.page('mch_a', undefined, { offset: 0, limit: 2 });
    store.cards.insert(card('card_new', 'mch_a', BASE + 10, 'PENDING'));
    const second = store.cards.page('mch_a', undefined, { offset: 2, limit: 2 });
    expect(first.rows.map((r) => r.cardId)).toEqual(['card_4', 'card_3']);
    expect(second.rows.map((r) => r.cardId)).toEqual(['card_3', 'card_2']);
    expect(second.total).toBe(first.total + 1);
    expect(store.cards.page('mch_a', 'ACTIVE', { offset: 0, limit: 10 }).total).toBe(5);
    expect(store.cards.page('mch_a', 'PENDING', { offset: 0, limit: 10 }).rows).toMatchObject([
      { cardId: 'card_new', status: 'PENDING' },
    ]);
    expect(store.cards.page('mch_b', undefined, { offset: 0, limit: 10 }).total).toBe(0);
  });

  it('forgets writes of a rolled-back unit of work, the index built inside it included', () => {
    for (let i = 0; i < 4; i++) store.cards.insert(card(`card_${i}`, 'mch_a', BASE + i, 'ACTIVE'));
    const failing = (work: () => void) =>
      expect(() =>
        store.atomically(() => {
          work();
          throw new Error('refused');
        }),
      ).toThrow('refused');

    // The index is first built while uncommitted rows are visible to SQLite.
    failing(() => {
      store.cards.insert(card('card_ghost', 'mch_a', BASE + 9, 'ACTIVE'));
      expect(store.cards.page('mch_a', undefined, { offset: 0, limit: 1 }).rows[0]?.cardId).toBe(
        'card_ghost',
      );
    });
    expectSameAsSqlite();

    // An index that exists sees a status change and an insert that are then rolled back.
    failing(() => {
      store.cards.setStatus('card_2', 'FROZEN');
      store.cards.insert(card('card_ghost2', 'mch_a', BASE + 9, 'PENDING'));
    });
    expectSameAsSqlite();
    expect(store.cards.page('mch_a', 'FROZEN', { offset: 0, limit: 5 }).total).toBe(0);

    // A committed unit of work stays.
    store.atomically(() => store.cards.setStatus('card_2', 'FROZEN'));
    expect(store.cards.page('mch_a', 'FROZEN', { offset: 0, limit: 5 }).rows).toMatchObject([
      { cardId: 'card_2' },
    ]);
    expectSameAsSqlite();
  });
});
