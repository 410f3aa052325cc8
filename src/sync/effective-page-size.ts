import type { PageResult } from '../api/index.js';

/**
 * The page size a list really pages by: the `limit` its first page reports, or the number of
 * records that page holds when that is fewer though the list counts more. An upstream that
 * pages by its own size whatever `limit` asks for, and echoes the limit asked for, would
 * otherwise have every page after the first read at the wrong offsets, most records never.
 * @example effectivePageSize({ records: twenty, rejected: [], pagination: { total: 90, limit: 100, page: 1, totalPages: 1 } }) // 20
 */
export function effectivePageSize(first: PageResult<unknown>): number {
  const { total, limit } = first.pagination;
  const held = first.records.length + first.rejected.length;
  return held > 0 && held < limit && held < total ? held : limit;
}
