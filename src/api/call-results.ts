import type { Pagination } from '../contract/index.js';
import type { MalformedRecordError } from './malformed-record-error.js';

/** One page of a paginated list: the valid records, the malformed ones, and the pagination. */
export interface PageResult<T> {
  records: T[];
  /** Records that failed validation, each with its raw value, in the order they came. */
  rejected: MalformedRecordError[];
  pagination: Pagination;
}

/** An unpaginated list (the offerings). */
export interface ListResult<T> {
  records: T[];
  rejected: MalformedRecordError[];
}

/** The upstream's answer to an order (every POST). */
export interface OrderResult {
  /** Undefined when the upstream answered a 2xx without a body (204 No Content). */
  orderNo: string | undefined;
  merchantOrderNo: string;
  /** True when the upstream answered from its idempotency store (`idempotent-replayed: true`). */
  replayed: boolean;
  /** The HTTP status (any 2xx; 201 from the sandbox). */
  status: number;
}
