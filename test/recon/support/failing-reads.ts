import { setTimeout as sleep } from 'node:timers/promises';
import { type CardIssuingClient, UpstreamError } from '../../../src/api/index.js';
import type { ListTransactionsQuery } from '../../../src/contract/index.js';
import type { SyncApi } from '../../../src/sync/sync-context.js';
import { syncApiOf } from '../../support/sync-harness.js';

/**
 * A `wrapApi` for `SyncWorld.sync` whose transaction reads that `fails` picks answer 503 past
 * all retries (after `delayMs`, so that what runs beside them can land first): the sync ends
 * incomplete (exit 4) with the rest read.
 */
export function failingTransactionReads(
  fails: (query: ListTransactionsQuery) => boolean,
  delayMs = 0,
): (api: CardIssuingClient) => SyncApi {
  return (api) => ({
    ...syncApiOf(api),
    listTransactions: async (query, options) => {
      if (!fails(query)) return api.listTransactions(query, options);
      if (delayMs > 0) await sleep(delayMs);
      throw new UpstreamError('UPSTREAM_UNAVAILABLE', 'listTransactions: answered 503', {
        operation: 'listTransactions',
        status: 503,
        attempts: 6,
      });
    },
  });
}

/** The closing count audit's requests (a page of one row) fail: statuses go unchecked. */
export const failingAudit = failingTransactionReads((query) => query.limit === 1);

/** Every window whose time range reaches instant `at` fails, a second after it was asked. */
export function failingWindowsAt(at: number): (api: CardIssuingClient) => SyncApi {
  return failingTransactionReads((query) => {
    const from = query.startTime === undefined ? 0 : Date.parse(query.startTime);
    const to = query.endTime === undefined ? Number.POSITIVE_INFINITY : Date.parse(query.endTime);
    return from <= at && at <= to;
  }, 1_000);
}
