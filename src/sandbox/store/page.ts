/** A window of a list: which rows to skip and how many to return. */
export interface PageWindow {
  readonly offset: number;
  readonly limit: number;
}

/** One page of rows and the number of rows matching in all. */
export interface PageResult<T> {
  readonly rows: T[];
  readonly total: number;
}
