/** How many rows a side holds in a range, and how many of them are in each status (DECLINED: the rest). */
export interface Tally {
  readonly rows: number;
  readonly pending: number;
  readonly completed: number;
  readonly settled: number;
}

/**
 * The fewest row changes that turn tally `from` into `to`: a row posted late (or gone) moves the
 * row count and one status's count by one, a status move two statuses' counts by one each.
 */
export function changesBetween(to: Tally, from: Tally): number {
  const declined = (t: Tally) => t.rows - t.pending - t.completed - t.settled;
  const statuses =
    Math.abs(to.pending - from.pending) +
    Math.abs(to.completed - from.completed) +
    Math.abs(to.settled - from.settled) +
    Math.abs(declined(to) - declined(from));
  return Math.max(Math.abs(to.rows - from.rows), Math.ceil(statuses / 2));
}

/** The sum of two tallies, count by count. */
export function plus(a: Tally, b: Tally): Tally {
  return {
    rows: a.rows + b.rows,
    pending: a.pending + b.pending,
    completed: a.completed + b.completed,
    settled: a.settled + b.settled,
  };
}

/** Tally `a` less tally `b`, count by count. */
export function minus(a: Tally, b: Tally): Tally {
  return {
    rows: a.rows - b.rows,
    pending: a.pending - b.pending,
    completed: a.completed - b.completed,
    settled: a.settled - b.settled,
  };
}

/** Whether two tallies agree on every count. */
export function same(a: Tally, b: Tally): boolean {
  return (
    a.rows === b.rows &&
    a.pending === b.pending &&
    a.completed === b.completed &&
    a.settled === b.settled
  );
}
