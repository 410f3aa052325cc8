import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Database } from '../../src/sqlite-driver.js';
import { quarantineRows } from '../support/quarantine-rows.js';
import {
  renamingTransaction,
  type SyncWorld,
  startSyncWorld,
  syncApiOf,
} from '../support/sync-harness.js';

interface Row {
  transaction_id: string;
  merchant_id: string;
  card_id: string;
  amount: string;
}

describe('a transaction id that the mirror holds as another merchant’s', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 2,
      seed: 'sync-transaction-of-two-merchants',
      world: { cards: 20, transactions: 100, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('is quarantined for the merchant that read it second, naming both, and the transaction stays its first merchant’s', async () => {
    expect((await w.sync()).outcome).toBe('done');
    const [a, b] = w.t.sandbox.merchants;
    // The newest: a range the next run reads again (its lookback).
    const pick = (merchantId: string) => {
      const db = new Database(w.mirrorFile, { readonly: true });
      try {
        return db
          .prepare(
            `SELECT transaction_id, merchant_id, card_id, amount FROM transactions
             WHERE merchant_id = ? ORDER BY created_at DESC, transaction_id LIMIT 1`,
          )
          .get(merchantId) as Row;
      } finally {
        db.close();
      }
    };
    const taken = pick(a!.merchantId);
    const renamed = pick(b!.merchantId);

    let made = 0;
    const result = await w.sync({
      // The harness wraps the merchants' clients in their order: the second is merchant b's.
      wrapApi: (api) =>
        made++ === 1
          ? renamingTransaction(api, renamed.transaction_id, taken.transaction_id)
          : syncApiOf(api),
    });
    expect(result.outcome).toBe('done');
    expect(result.merchants[1]!.transactions.quarantined).toBe(1);

    const after = new Database(w.mirrorFile, { readonly: true });
    try {
      expect(
        after
          .prepare(
            'SELECT transaction_id, merchant_id, card_id, amount FROM transactions WHERE transaction_id = ?',
          )
          .get(taken.transaction_id),
      ).toEqual(taken);
      const quarantined = quarantineRows(w.mirrorFile, 'transactions');
      expect(quarantined).toHaveLength(1);
      const [row] = quarantined;
      expect(row).toMatchObject({ merchant_id: b!.merchantId, record_id: taken.transaction_id });
      expect(row!.reason).toContain('/transactionId');
      expect(row!.reason).toContain(a!.merchantId);
      expect(JSON.parse(row!.raw_json)).toMatchObject({
        transactionId: taken.transaction_id,
        cardId: renamed.card_id,
        amount: renamed.amount,
      });
    } finally {
      after.close();
    }

    // Merchant b never read a transaction of that id as its own: the next run, whose windows
    // read it as merchant a's, resolves nothing.
    expect((await w.sync()).outcome).toBe('done');
    expect(quarantineRows(w.mirrorFile, 'transactions')).toMatchObject([{ resolved_at: null }]);
  });
});
