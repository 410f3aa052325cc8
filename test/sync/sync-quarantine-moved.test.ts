import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { breakRecords } from '../support/malformed-records.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

describe('a malformed transaction whose status moves while the sync runs', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine-moved',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('counts once in the count audit, as its last version: no rows the upstream no longer counts', async () => {
    const card = activeCard(w.t);
    const id = await postForced(w.t, card, {
      type: 'PURCHASE',
      status: 'PENDING',
      amount: '1.00',
      createdAt: Date.now() - 86_400_000,
    });
    // Always malformed (its amount a JSON number); it completes right after it is first read.
    let completed = false;
    const wrap = (api: CardIssuingClient): SyncApi => ({
      ...syncApiOf(api),
      listTransactions: async (query, options) => {
        const page = await api.listTransactions(query, options);
        const read = breakRecords(page, 'listTransactions', (row) =>
          row.transactionId === id
            ? { raw: { ...row, amount: 1 }, reason: '/amount must be string' }
            : undefined,
        );
        if (read > 0 && !completed) {
          completed = true;
          const moved = await w.t.control.post(`/_control/transactions/${id}/status`, {
            status: 'COMPLETED',
          });
          expect(moved.status).toBe(200);
        }
        return page;
      },
    });
    const result = await w.sync({ wrapApi: wrap });
    expect(result.outcome).toBe('done');
    expect(completed).toBe(true);
    const merchant = result.merchants[0]!;
    expect(merchant.transactions.quarantined).toBe(2);
    expect(merchant.audit.surplus).toBe(0);
    expect(merchant.audit.reread).toBe(1);
  });
});
