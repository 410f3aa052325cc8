import type { CardIssuingClient } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { syncApiOf } from './sync-harness.js';
import type { TestSandbox } from './test-sandbox.js';

/**
 * The upstream as it would answer had it lost transaction `id`: never listed, never counted.
 * How a test makes a mirrored row vanish (the sandbox never loses one).
 */
export function losingUpstream(t: TestSandbox, id: string) {
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
      return {
        ...page,
        records: page.records.filter((r) => r.transactionId !== id),
        pagination: { ...page.pagination, total: page.pagination.total - 1 },
      };
    },
  });
}
