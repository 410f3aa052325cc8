import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../../src/sandbox/store/records.js';
import { Database } from '../../src/sqlite-driver.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { compareMirror, NO_DIFFERENCES } from '../support/mirror-comparison.js';
import { type SyncWorld, startSyncWorld } from '../support/sync-harness.js';

/**
 * Section 4's lifecycles are the sandbox's; a real upstream's transitions are "not shown"
 * (card-issuing-api.md), and section 7 lets the sync assume no more than it lists. A purchase
 * whose authorisation expired (DECLINED) and whose clearing then arrived (SETTLED) moves
 * between the two statuses the audit once did not tell apart.
 */
describe('a row that moves from DECLINED to SETTLED, older than the lookback', () => {
  let w: SyncWorld;
  let id: string;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'declined-then-settled',
      world: { cards: 50, transactions: 1000, days: 60, anomaliesPerCode: 0 },
    });
    const card = activeCard(w.t);
    id = await postForced(w.t, card, {
      type: 'PURCHASE',
      status: 'DECLINED',
      amount: '7.00',
      createdAt: Date.now() - 25 * 86_400_000,
    });
  });
  afterAll(async () => w.close());

  it('is read again and mirrored SETTLED', async () => {
    expect((await w.sync()).outcome).toBe('done');
    // The control surface keeps to section 4's moves: the store is written as the upstream would.
    const store = w.t.sandbox.context.store;
    store.atomically(() => {
      const row = store.transactions.get(id) as TransactionRecord;
      store.transactions.update(row, 'SETTLED', true, row.appliedEffectMinor);
    });

    const result = await w.sync();
    expect(result.outcome).toBe('done');
    expect(compareMirror(w.t.sandbox, w.mirrorFile)).toEqual(NO_DIFFERENCES);
    expect(result.merchants[0]!.unsettled.changed).toBe(1);
    const db = new Database(w.mirrorFile, { readonly: true });
    try {
      expect(
        db.prepare('SELECT status FROM transactions WHERE transaction_id = ?').pluck().get(id),
      ).toBe('SETTLED');
    } finally {
      db.close();
    }
  });
});
