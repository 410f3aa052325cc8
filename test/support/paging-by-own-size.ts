import type { CardIssuingClient, PageResult } from '../../src/api/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';
import { syncApiOf } from './sync-harness.js';

/** The list calls an upstream may page by a size of its own. */
export type ListCall = 'listCards' | 'listTransactions';

/**
 * The client of an upstream that pages the `lists` named by `pageSize` whatever `limit` asks
 * for, and echoes the limit asked for in `pagination` (with the totalPages that limit would give).
 */
export function pagingByOwnSize(
  api: CardIssuingClient,
  lists: readonly ListCall[],
  pageSize: number,
): SyncApi {
  const echo = <T>(page: PageResult<T>, asked: unknown): PageResult<T> => {
    const limit = Number(asked ?? pageSize);
    page.pagination = {
      ...page.pagination,
      limit,
      totalPages: Math.ceil(page.pagination.total / limit),
    };
    return page;
  };
  const client = syncApiOf(api);
  return {
    ...client,
    ...(lists.includes('listCards') && {
      listCards: async (query, options) =>
        echo(await api.listCards({ ...query, limit: pageSize }, options), query.limit),
    }),
    ...(lists.includes('listTransactions') && {
      listTransactions: async (query, options) =>
        echo(await api.listTransactions({ ...query, limit: pageSize }, options), query.limit),
    }),
  };
}
