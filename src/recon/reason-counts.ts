import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/**
 * A count of candidates per reason they were left out; a null reason counts as examined. `ids`
 * lists the skipped candidates' `subject` (joined by `ID_SEPARATOR`) when one was asked for.
 */
export interface ReasonCount {
  readonly reason: string | null;
  readonly n: number;
  readonly ids?: string | null;
}

/**
 * Count the rows of the CTE `candidates` (the last of `withClause`) by their `reason` column:
 * the coverage of a check whose candidates carry why they could not be examined. A candidate
 * that stands for several records (a group) names its count in the column `weight`; `subject`,
 * a column of `candidates`, lists the ids of the skipped ones (see `CoverageTally.addGrouped`).
 */
export function reasonCounts(
  db: SqliteDatabase,
  withClause: string,
  params: Readonly<Record<string, unknown>>,
  options: { readonly weight?: string; readonly subject?: string } = {},
): ReasonCount[] {
  const n = options.weight === undefined ? 'count(*)' : `sum(${options.weight})`;
  const ids =
    options.subject === undefined
      ? ''
      : `, group_concat(CASE WHEN reason IS NOT NULL THEN ${options.subject} END, char(31)) AS ids`;
  return db
    .prepare(`WITH ${withClause} SELECT reason, ${n} AS n${ids} FROM candidates GROUP BY reason`)
    .all(params) as ReasonCount[];
}
