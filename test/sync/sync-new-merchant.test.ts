import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MerchantSession } from '../support/merchant-session.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a first sync whose history starts after the cutoff', () => {
  let w: SyncWorld;
  let m: MerchantSession;
  beforeAll(async () => {
    w = await startSyncWorld({ merchants: 1, seed: 'new-merchant' });
    m = new MerchantSession(w.t, 0);
  });
  afterAll(async () => w.close());

  it('completes when the only card is younger than the safety lag', async () => {
    const { cardId } = await m.activeCard();
    const result = await w.sync();
    expect(result.merchants[0]?.error).toBeNull();
    expect(result.outcome).toBe('done');
    const mirror = w.openMirror();
    try {
      const cards = mirror.db.prepare('SELECT card_id FROM cards').pluck().all();
      expect(cards).toEqual([cardId]);
      // The card's FEE record is after the cutoff: the tail window read it.
      const fees = mirror.db.prepare('SELECT count(*) FROM transactions').pluck().get();
      expect(fees).toBe(1);
    } finally {
      await mirror.close();
    }
  });

  it('completes with --since after the cutoff', async () => {
    const result = await w.sync({ settings: { since: Date.now() + 86_400_000 } });
    expect(result.merchants[0]?.error).toBeNull();
    expect(result.outcome).toBe('done');
  });
});

describe('a merchant with no card yet', () => {
  let w: SyncWorld;
  let m: MerchantSession;
  beforeAll(async () => {
    w = await startSyncWorld({ merchants: 1, seed: 'no-cards' });
    m = new MerchantSession(w.t, 0);
  });
  afterAll(async () => w.close());

  it('is kept under a provisional id, moved to the real one once a card shows it', async () => {
    const first = await w.sync();
    expect(first.outcome).toBe('done');
    expect(first.merchants[0]?.merchantId).toBe('source:m0');
    await m.activeCard();
    const second = await w.sync();
    const real = w.t.sandbox.merchants[0]?.merchantId;
    expect(second.merchants[0]?.merchantId).toBe(real);
    const mirror = w.openMirror();
    try {
      const ids = (sql: string) => mirror.db.prepare(sql).pluck().all();
      expect(ids('SELECT merchant_id FROM merchants')).toEqual([real]);
      // Both nights' balance snapshots, one history.
      expect(ids('SELECT DISTINCT merchant_id FROM merchant_balances')).toEqual([real]);
      expect(ids('SELECT count(*) FROM merchant_balances')).toEqual([2]);
      expect(ids('SELECT DISTINCT merchant_id FROM sync_progress')).toEqual([real]);
      expect(ids('SELECT DISTINCT merchant_id FROM offerings')).toEqual([real]);
    } finally {
      await mirror.close();
    }
  });
});

describe('a merchant whose id is learnt from a list that starts with a card of another merchant', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'foreign-first-card',
      world: { cards: 12, transactions: 60, days: 5, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it("is learnt from the merchant's own cards; the stray card is quarantined", async () => {
    const real = w.t.sandbox.merchants[0]?.merchantId;
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        async listCards(query, options) {
          const page = await api.listCards(query, options);
          if (query.page !== 1 || page.records.length === 0) return page;
          // The upstream slips a card of another merchant to the head of the list.
          const stray = { ...page.records[0]!, cardId: 'card_stray', merchantId: 'mch_stray' };
          const pagination = { ...page.pagination, total: page.pagination.total + 1 };
          return { ...page, records: [stray, ...page.records], pagination };
        },
      }),
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]?.merchantId).toBe(real);
    const mirror = w.openMirror();
    try {
      const ids = (sql: string) => mirror.db.prepare(sql).pluck().all();
      expect(ids('SELECT merchant_id FROM merchants')).toEqual([real]);
      expect(ids('SELECT count(*) FROM cards')).toEqual([12]);
      expect(ids("SELECT record_id FROM quarantine WHERE resource = 'cards'")).toEqual([
        'card_stray',
      ]);
    } finally {
      await mirror.close();
    }
  });
});
