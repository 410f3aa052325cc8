import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CardIssuingClient,
  MalformedRecordError,
  UpstreamError,
} from '../../src/api/index.js';
import { orphanTransaction } from '../../src/recon/checks/orphan-transaction.js';
import { runChecks } from '../../src/recon/run-checks.js';
import { Database } from '../../src/sqlite-driver.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { breakRecords } from '../support/malformed-records.js';
import { compareMirror } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/**
 * The real client, with chosen records altered after they arrive: some turned into what fails
 * the contract (an amount as a JSON number), one given an amount too large to hold exactly.
 * The sandbox never sends such records, so this is the one place they are made.
 */
function corrupting(api: CardIssuingClient, broken: Set<string>, huge: string): SyncApi {
  return {
    listCards: (q, o) => api.listCards(q, o),
    getCard: (id, o) => api.getCard(id, o),
    getMerchantBalance: (o) => api.getMerchantBalance(o),
    listOfferings: (o) => api.listOfferings(o),
    upstreamNow: () => api.upstreamNow(),
    listTransactions: async (query, options) => {
      const page = await api.listTransactions(query, options);
      breakRecords(page, 'listTransactions', (row) =>
        broken.has(row.transactionId)
          ? { raw: { ...row, amount: Number(row.amount) }, reason: '/amount must be string' }
          : undefined,
      );
      page.records = page.records.map((row) =>
        row.transactionId === huge ? { ...row, amount: '98765432109876543210.00' } : row,
      );
      return page;
    },
  };
}

describe('malformed records from the upstream', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine',
      world: { cards: 40, transactions: 600, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('are quarantined with the raw record and the reason while the run goes on, and resolved once they arrive valid', async () => {
    const ids = (
      w.t.sandbox.context.store.db
        .prepare(
          'SELECT transaction_id AS id FROM transactions WHERE posted = 1 ORDER BY transaction_id LIMIT 4',
        )
        .all() as { id: string }[]
    ).map((row) => row.id);
    const broken = new Set(ids.slice(0, 3));
    const huge = ids[3]!;
    const first = await w.sync({ wrapApi: (api) => corrupting(api, broken, huge) });
    expect(first.outcome).toBe('done');
    expect(first.merchants[0]!.transactions.quarantined).toBe(4);
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions.sort()).toEqual(
      [...ids].sort(),
    );
    const db = new Database(w.mirrorFile, { readonly: true });
    const rows = () =>
      db
        .prepare(
          "SELECT record_id, reason, raw_json, seen_count, resolved_at FROM quarantine WHERE resource = 'transactions' ORDER BY record_id",
        )
        .all() as {
        record_id: string;
        reason: string;
        raw_json: string;
        seen_count: number;
        resolved_at: string | null;
      }[];
    try {
      const quarantined = rows();
      expect(quarantined.map((q) => q.record_id).sort()).toEqual([...ids].sort());
      for (const q of quarantined) {
        const raw = JSON.parse(q.raw_json) as { transactionId: string; amount: unknown };
        expect(raw.transactionId).toBe(q.record_id);
        if (q.record_id === huge) {
          expect(q.reason).toMatch(/too large/);
          expect(raw.amount).toBe('98765432109876543210.00');
        } else {
          expect(q.reason).toBe('/amount must be string');
          expect(typeof raw.amount).toBe('number');
        }
        expect(q.resolved_at).toBeNull();
      }

      // Still malformed next run: read again once (it might have been repaired), kept, no loop.
      const again = await w.sync({ wrapApi: (api) => corrupting(api, broken, huge) });
      expect(again.outcome).toBe('done');
      const audit = again.merchants[0]!.audit;
      expect(audit.reread).toBeGreaterThan(0);
      expect(audit.reread).toBeLessThanOrEqual(4);
      for (const q of rows()) {
        expect(q.seen_count).toBe(2);
        expect(q.resolved_at).toBeNull();
      }

      const second = await w.sync();
      expect(second.outcome).toBe('done');
      expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions).toEqual([]);
      for (const q of rows()) expect(q.resolved_at).not.toBeNull();
    } finally {
      db.close();
    }
  });
});

describe('a malformed single record from the upstream', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine-single',
      world: { cards: 30, transactions: 400, days: 20, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  const malformed = (operation: string, raw: unknown, reason: string) =>
    new MalformedRecordError(raw, reason, { operation, attempts: 1 });

  it('a merchant balance is quarantined and the rest of the run goes on', async () => {
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        getMerchantBalance: async () => {
          throw malformed('getMerchantBalance', { balance: 1000.5 }, '/balance must be string');
        },
      }),
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]?.balance.outcome).toBe('quarantined');
    expect(compareMirror(w.t.sandbox, w.mirrorFile).missingTransactions).toEqual([]);
    const mirror = w.openMirror();
    try {
      const rows = mirror.db
        .prepare("SELECT reason, raw_json FROM quarantine WHERE resource = 'merchant_balance'")
        .raw()
        .all();
      expect(rows).toEqual([['/balance must be string', '{"balance":1000.5}']]);
      expect(mirror.db.prepare('SELECT count(*) FROM merchant_balances').pluck().get()).toBe(0);
    } finally {
      await mirror.close();
    }
  });

  it('a balance or an offering term too large to hold exactly is quarantined, not stored', async () => {
    const huge = '98765432109876543210.00';
    let offeringId = '';
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        getMerchantBalance: async (options) => ({
          ...(await api.getMerchantBalance(options)),
          balance: huge,
        }),
        listOfferings: async (options) => {
          const list = await api.listOfferings(options);
          const [first, ...rest] = list.records;
          offeringId = first?.id ?? '';
          return { ...list, records: [{ ...first!, issuanceFee: huge }, ...rest] };
        },
      }),
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]?.balance.outcome).toBe('quarantined');
    const mirror = w.openMirror();
    try {
      const rows = mirror.db
        .prepare(
          `SELECT resource, record_id, reason FROM quarantine
           WHERE reason LIKE '%too large%' ORDER BY resource`,
        )
        .raw()
        .all();
      expect(rows).toEqual([
        ['merchant_balance', null, `balance ${huge} USD is too large to hold exactly`],
        ['offerings', offeringId, `issuanceFee ${huge} USD is too large to hold exactly`],
      ]);
      const stored = mirror.db
        .prepare('SELECT count(*) FROM offering_versions WHERE issuance_fee = ?')
        .pluck()
        .get(huge);
      expect(stored).toBe(0);
    } finally {
      await mirror.close();
    }
  });

  it('a card the list lacks is asked for by /cards/info; a 404 makes it gone, malformed is quarantined', async () => {
    const store = w.t.sandbox.context.store.db;
    const [gone, broken] = store
      .prepare('SELECT card_id FROM transactions GROUP BY card_id ORDER BY card_id LIMIT 2')
      .pluck()
      .all() as string[];
    const asked: string[] = [];
    const result = await w.sync({
      wrapApi: (api) => ({
        ...syncApiOf(api),
        // This run's list lacks both cards, which the first run's list showed.
        async listCards(query, options) {
          const page = await api.listCards(query, options);
          const records = page.records.filter((c) => c.cardId !== gone && c.cardId !== broken);
          const total = page.pagination.total - 2;
          return { ...page, records, pagination: { ...page.pagination, total } };
        },
        async getCard(cardId, options) {
          asked.push(cardId);
          if (cardId === gone)
            throw new UpstreamError('UPSTREAM_REJECTED', 'getCard: 404 CARD_NOT_FOUND', {
              operation: 'getCard',
              status: 404,
              upstreamCode: 'CARD_NOT_FOUND',
              attempts: 1,
            });
          const card = await api.getCard(cardId, options);
          throw malformed('getCard', { ...card, balance: 12 }, '/balance must be string');
        },
      }),
    });
    expect(result.outcome).toBe('done');
    expect(asked.sort()).toEqual([gone, broken].sort());
    expect(result.merchants[0]?.missingCards).toMatchObject({ checked: 2, orphans: 1 });
    const mirror = w.openMirror();
    try {
      const quarantined = mirror.db
        .prepare("SELECT record_id FROM quarantine WHERE resource = 'cards'")
        .pluck()
        .all();
      expect(quarantined).toEqual([broken]);
      const orphans = runChecks(mirror.db, { checks: [orphanTransaction] }).findings;
      expect(new Set(orphans.map((f) => f.cardId))).toEqual(new Set([gone]));
    } finally {
      await mirror.close();
    }
    // Listed again the next night: no longer gone.
    expect((await w.sync()).outcome).toBe('done');
    const again = w.openMirror();
    try {
      expect(runChecks(again.db, { checks: [orphanTransaction] }).findings).toEqual([]);
    } finally {
      await again.close();
    }
  });
});

describe('a transaction naming a card of another merchant', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 2,
      seed: 'sync-foreign-card',
      world: { cards: 20, transactions: 200, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is an orphan of its merchant even when the other merchant, synced first, listed the card', async () => {
    const [first, second] = w.t.sandbox.merchants.map((m) => m.merchantId);
    const store = w.t.sandbox.context.store.db;
    const othersCard = store
      .prepare('SELECT card_id FROM cards WHERE merchant_id = ? ORDER BY card_id LIMIT 1')
      .pluck()
      .get(first) as string;
    const renamed = store
      .prepare('SELECT transaction_id FROM transactions WHERE merchant_id = ? ORDER BY 1 LIMIT 1')
      .pluck()
      .get(second) as string;
    let sources = 0;
    const result = await w.sync({
      wrapApi: (api) => {
        // The first source reads merchant `first` and lists `othersCard` before the second
        // source's sync; one of the second merchant's transactions names that card.
        if (sources++ === 0) return syncApiOf(api);
        return {
          ...syncApiOf(api),
          async listTransactions(query, options) {
            const page = await api.listTransactions(query, options);
            page.records = page.records.map((t) =>
              t.transactionId === renamed ? { ...t, cardId: othersCard } : t,
            );
            return page;
          },
        };
      },
    });
    expect(result.outcome).toBe('done');
    // /cards/info answers 404 for another merchant's card (reference-model section 1).
    expect(result.merchants[1]?.missingCards).toMatchObject({ checked: 1, orphans: 1 });
    const mirror = w.openMirror();
    try {
      const orphans = runChecks(mirror.db, { checks: [orphanTransaction] }).findings;
      expect(orphans.map((f) => [f.merchantId, f.transactionId, f.cardId])).toEqual([
        [second, renamed, othersCard],
      ]);
    } finally {
      await mirror.close();
    }
  });
  it("keeps each merchant's answer about a card apart: one merchant's 404 does not make the owner's card gone", async () => {
    const [owner, other] = w.t.sandbox.merchants.map((m) => m.merchantId);
    const store = w.t.sandbox.context.store.db;
    const card = store
      .prepare(
        'SELECT card_id FROM transactions WHERE merchant_id = ? GROUP BY card_id ORDER BY card_id LIMIT 1',
      )
      .pluck()
      .get(owner) as string;
    const renamed = store
      .prepare('SELECT transaction_id FROM transactions WHERE merchant_id = ? ORDER BY 1 LIMIT 1')
      .pluck()
      .get(other) as string;
    let sources = 0;
    const result = await w.sync({
      mirrorFile: join(w.dir, 'answers-apart.sqlite'),
      wrapApi: (api) => {
        const mine = sources++ === 0;
        return {
          ...syncApiOf(api),
          // The owner's list hides its card this run (it drifted away): /cards/info finds it.
          async listCards(query, options) {
            const page = await api.listCards(query, options);
            if (!mine || !page.records.some((c) => c.cardId === card)) return page;
            const records = page.records.filter((c) => c.cardId !== card);
            const total = page.pagination.total - 1;
            return { ...page, records, pagination: { ...page.pagination, total } };
          },
          // One of the other merchant's transactions names the owner's card: a 404 for it.
          async listTransactions(query, options) {
            const page = await api.listTransactions(query, options);
            if (mine) return page;
            page.records = page.records.map((t) =>
              t.transactionId === renamed ? { ...t, cardId: card } : t,
            );
            return page;
          },
        };
      },
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[0]?.missingCards).toMatchObject({ checked: 1, orphans: 0 });
    expect(result.merchants[1]?.missingCards).toMatchObject({ checked: 1, orphans: 1 });
    const mirror = w.openMirror(join(w.dir, 'answers-apart.sqlite'));
    try {
      const orphans = runChecks(mirror.db, { checks: [orphanTransaction] }).findings;
      expect(orphans.map((f) => [f.merchantId, f.transactionId, f.cardId])).toEqual([
        [other, renamed, card],
      ]);
    } finally {
      await mirror.close();
    }
  });
});
