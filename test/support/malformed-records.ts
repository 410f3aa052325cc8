import { MalformedRecordError, type PageResult } from '../../src/api/index.js';
import type { OperationId } from '../../src/contract/index.js';
import type { SyncApi } from '../../src/sync/sync-context.js';

/** How a chosen record arrives instead: its raw form and why the client refuses it. */
export interface Breakage {
  readonly raw: unknown;
  readonly reason: string;
}

/**
 * `page` with the records `breaks` picks moved to its rejected list, as if the client had
 * refused them (the sandbox never sends a malformed record, so tests make them here): `breaks`
 * returns how a record arrives instead, or undefined to keep it. Order is kept within each list.
 * @returns how many records it broke.
 */
export function breakRecords<T>(
  page: PageResult<T>,
  operation: OperationId,
  breaks: (record: T) => Breakage | undefined,
): number {
  const kept: T[] = [];
  let broken = 0;
  for (const record of page.records) {
    const breakage = breaks(record);
    if (breakage === undefined) kept.push(record);
    else {
      broken += 1;
      page.rejected.push(
        new MalformedRecordError(breakage.raw, breakage.reason, { operation, attempts: 1 }),
      );
    }
  }
  page.records = kept;
  return broken;
}

/**
 * `api` with transaction `id` arriving malformed wherever it is listed (its amount a JSON
 * number, which the client refuses): how a test has a mirrored row arrive broken.
 */
export function corruptingTransaction(api: SyncApi, id: string): SyncApi {
  return {
    ...api,
    async listTransactions(query, options) {
      const page = await api.listTransactions(query, options);
      breakRecords(page, 'listTransactions', (row) =>
        row.transactionId === id
          ? { raw: { ...row, amount: Number(row.amount) }, reason: '/amount must be string' }
          : undefined,
      );
      return page;
    },
  };
}
