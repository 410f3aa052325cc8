import type { CardIssuingClient } from '../../src/api/index.js';
import { Database } from '../../src/sqlite-driver.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { syncApiOf } from './sync-harness.js';
import type { TestSandbox } from './test-sandbox.js';

/** How the upstream of {@link losingUpstream} answers besides leaving the row out. */
export interface Losing {
  /**
   * Its pages (not its `limit=1` counts) still count the row they no longer serve, so no
   * reading of the row's millisecond ever matches its count.
   */
  readonly countedInPages?: boolean;
}

/**
 * The upstream as it would answer had it lost transaction `id`: never listed, never counted.
 * How a test makes a mirrored row vanish (the sandbox never loses one).
 */
export function losingUpstream(t: TestSandbox, id: string, how: Losing = {}) {
  return (api: CardIssuingClient): SyncApi => ({
    ...syncApiOf(api),
    async listTransactions(query, options) {
      const page = await api.listTransactions(query, options);
      const lost = t.sandbox.context.store.transactions.get(id);
      if (!lost) return page;
      const holds =
        (query.cardId === undefined || query.cardId === lost.cardId) &&
        (query.type === undefined || query.type === lost.type) &&
        (query.status === undefined || query.status === lost.status) &&
        (query.startTime === undefined || Date.parse(query.startTime) <= lost.createdAt) &&
        (query.endTime === undefined || lost.createdAt <= Date.parse(query.endTime));
      if (!holds) return page;
      const counted = how.countedInPages === true && query.limit !== 1;
      return {
        ...page,
        records: page.records.filter((r) => r.transactionId !== id),
        pagination: { ...page.pagination, total: page.pagination.total - (counted ? 0 : 1) },
      };
    },
  });
}

/** The ids the mirror at `file` lists as vanished (`vanished_transactions`). */
export function vanishedIds(file: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT transaction_id FROM vanished_transactions').pluck().all() as string[];
  } finally {
    db.close();
  }
}
