import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { activeCard, postForced } from '../support/forced-transactions.js';
import { breakRecords } from '../support/malformed-records.js';
import { type SyncWorld, startSyncWorld, syncApiOf } from '../support/sync-harness.js';

/**
 * The real client, with chosen transactions arriving without their transactionId (and, with
 * `noCard`, without their cardId: no id of any kind to quarantine them under).
 */
function withoutId(api: CardIssuingClient, ids: readonly string[], noCard = false): SyncApi {
  return {
    ...syncApiOf(api),
    listTransactions: async (query, options) => {
      const page = await api.listTransactions(query, options);
      breakRecords(page, 'listTransactions', ({ transactionId, cardId, ...rest }) =>
        ids.includes(transactionId)
          ? {
              raw: noCard ? rest : { cardId, ...rest },
              reason: "(record) must have required property 'transactionId'",
            }
          : undefined,
      );
      return page;
    },
  };
}

describe('malformed transactions without a transactionId', () => {
  let w: SyncWorld;
  beforeAll(async () => {
    w = await startSyncWorld({
      merchants: 1,
      seed: 'sync-quarantine-without-id',
      world: { cards: 30, transactions: 400, days: 30, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => w.close());

  it('are each quarantined, two of one card in one millisecond too, and their window verifies', async () => {
    const card = activeCard(w.t);
    const createdAt = Date.now() - 10 * 86_400_000;
    const ids: string[] = [];
    for (const amount of ['1.00', '2.00']) {
      ids.push(
        await postForced(w.t, card, { type: 'PURCHASE', status: 'COMPLETED', amount, createdAt }),
      );
    }
    const result = await w.sync({ wrapApi: (api) => withoutId(api, ids) });
    expect(result.outcome).toBe('done');
    const transactions = result.merchants[0]!.transactions;
    expect(transactions.quarantined).toBe(2);
    expect(transactions.unverified).toBe(0);
    expect(transactions.splits).toBe(0);
  });

  it('count as present in the closing audit with no id of any kind, so their range is not read again', async () => {
    const card = activeCard(w.t);
    const createdAt = Date.now() - 20 * 86_400_000;
    const id = await postForced(w.t, card, {
      type: 'PURCHASE',
      status: 'COMPLETED',
      amount: '3.00',
      createdAt,
    });
    const result = await w.sync({
      mirrorFile: join(w.dir, 'no-id-at-all.sqlite'),
      wrapApi: (api) => withoutId(api, [id], true),
    });
    const merchant = result.merchants[0]!;
    expect(merchant.transactions.quarantined).toBe(1);
    // The upstream counts the record in its range: so must the mirror, as the run read it.
    expect(merchant.audit).toMatchObject({ reread: 0, surplus: 0 });
  });
});
