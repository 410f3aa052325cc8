import type { OperationId } from './routes.js';

/** How an operation's records come back: a page (`data` and `pagination`), a list, or one. */
export type ResponseShape = 'page' | 'list' | 'single';

/** What the API client needs of one operation: where to send it, and how to check the answer. */
export interface ClientOperation {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly shape: ResponseShape;
  /** The record it answers with (an item of `data`, or `data` itself), by title in `records`. */
  readonly record: string;
}

/**
 * The client's copy of the contract, as plain data: the paths and response schemas of ROUTES
 * without the schema library that builds them, so a run does not load typebox (about 0.2 s of
 * start-up). Type-only imports here: nothing at run time.
 */
export interface ClientContract {
  /** The JSON Schema of a page's `pagination` object. */
  readonly pagination: object;
  /** The JSON Schema of each record, by its title (Card, Transaction, ...). */
  readonly records: Readonly<Record<string, object>>;
  readonly operations: Readonly<Record<OperationId, ClientOperation>>;
}
