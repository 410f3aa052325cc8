import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { ListTransactionsQuery } from '../../src/contract/index.js';
import { Database } from '../../src/sqlite-driver.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/** Moves that section 4 allows, one of each, for rows far older than the lookback. */
const MOVES = [
  { type: 'PURCHASE', from: 'PENDING', to: 'DECLINED' },
  { type: 'PURCHASE', from: 'COMPLETED', to: 'SETTLED' },
  { type: 'REFUND', from: 'COMPLETED', to: 'SETTLED' },
  { type: 'REVERSAL', from: 'COMPLETED', to: 'SETTLED' },
  { type: 'FEE', from: 'COMPLETED', to: 'SETTLED' },
] as const;

describe('status changes of rows older than the lookback', () => {
  let w: SyncWorld;
  const planted: { id: string; to: string }[] = [];
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'old-status-changes',
      world: { cards: 300, transactions: 6000, days: 60, anomaliesPerCode: 0 },
    });
    // A generated world settles or declines its rows within days: plant, three and four weeks
    // back, rows still in each status that may move.
    const card = activeCard(w.t);
    for (const move of MOVES)
      for (const days of [20, 30]) {
        const id = await postForced(w.t, card, {
          type: move.type,
          status: move.from,
          amount: '1.00',
          createdAt: Date.now() - days * 86_400_000,
        });
        planted.push({ id, to: move.to });
      }
  });
  afterAll(async () => w.close());

  it('costs eight count requests when nothing old moved: the history, and the time before it', async () => {
    expect((await w.sync()).outcome).toBe('done');
    const again = await w.sync();
    const merchant = again.merchants[0]!;
    expect(merchant.audit).toEqual({ outcome: 'done', queries: 8, reread: 0, surplus: 0 });
    expect(merchant.transactions.updated).toBe(0);
    expect(merchant.unsettled.watched).toBeGreaterThan(0);
  });

  it('catches every kind of move, FEE and REVERSAL settling included, reading little', async () => {
    for (const row of planted) {
      const moved = await w.t.control.post(`/_control/transactions/${row.id}/status`, {
        status: row.to,
      });
      expect(moved.status).toBe(200);
    }
    const moved = planted.map((row) => row.id);
    const store = w.t.sandbox.context.store.db;
    const total = (store.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number })
      .n;

    const result = await w.sync();
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
    const merchant = result.merchants[0]!;
    expect(merchant.unsettled.changed).toBe(moved.length);
    expect(merchant.audit.reread).toBeGreaterThan(0);
    // Moved rows are still counted, only under another status: none is a surplus (a row the
    // upstream no longer counts), which would warn an operator for nothing.
    expect(merchant.audit.surplus).toBe(0);
    // The lookback plus a few small ranges around the moved rows, not the history.
    expect(merchant.transactions.fetched).toBeLessThan(total / 2);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      const changes = db
        .prepare(
          'SELECT transaction_id FROM transaction_status_changes WHERE run_id = ? ORDER BY 1',
        )
        .pluck()
        .all(result.runId);
      expect(changes).toEqual([...moved].sort());
    } finally {
      db.close();
    }
  });

  it('names a row the upstream no longer shows, and reads the rest of its range', async () => {
    const hidden = w.t.sandbox.context.store.db
      .prepare(
        'SELECT transaction_id AS id, card_id AS cardId, type, status, created_at AS at FROM transactions WHERE transaction_id = ?',
      )
      .get(planted[0]!.id) as {
      id: string;
      cardId: string;
      type: string;
      status: string;
      at: number;
    };
    // What the upstream would answer had it lost the row: never listed, never counted.
    const holds = (query: ListTransactionsQuery) =>
      (query.cardId === undefined || query.cardId === hidden.cardId) &&
      (query.type === undefined || query.type === hidden.type) &&
      (query.status === undefined || query.status === hidden.status) &&
      (query.startTime === undefined || Date.parse(query.startTime) <= hidden.at) &&
      (query.endTime === undefined || hidden.at <= Date.parse(query.endTime));
    const losing = (api: CardIssuingClient): SyncApi => ({
      listCards: (query, options) => api.listCards(query, options),
      getCard: (cardId, options) => api.getCard(cardId, options),
      getMerchantBalance: (options) => api.getMerchantBalance(options),
      listOfferings: (options) => api.listOfferings(options),
      upstreamNow: () => api.upstreamNow(),
      async listTransactions(query, options) {
        const page = await api.listTransactions(query, options);
        if (!holds(query)) return page;
        return {
          ...page,
          records: page.records.filter((t) => t.transactionId !== hidden.id),
          pagination: { ...page.pagination, total: page.pagination.total - 1 },
        };
      },
    });
    const result = await w.sync({ wrapApi: losing });
    expect(result.outcome).toBe('done');
    const merchant = result.merchants[0]!;
    expect(merchant.unsettled.vanished).toBe(1);
    expect(merchant.audit.surplus).toBe(1);
    // The mirror keeps the row: it was seen, and losing it upstream is itself worth a look.
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      expect(
        db
          .prepare('SELECT count(*) FROM transactions WHERE transaction_id = ?')
          .pluck()
          .get(hidden.id),
      ).toBe(1);
    } finally {
      db.close();
    }
  });
});
