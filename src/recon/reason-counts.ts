import type { SqliteDatabase } from '../mirror/sqlite-database.js';

/** A count of candidates per reason they were left out; a null reason counts as examined. */
export interface ReasonCount {
  readonly reason: string | null;
  readonly n: number;
}

/**
 * Count the rows of the CTE `candidates` (the last of `withClause`) by their `reason` column:
 * the coverage of a check whose candidates carry why they could not be examined. A candidate
 * that stands for several records (a group) names its count in the column `weight`.
 */
export function reasonCounts(
  db: SqliteDatabase,
  withClause: string,
  params: Readonly<Record<string, unknown>>,
  weight?: string,
): ReasonCount[] {
  const n = weight === undefined ? 'count(*)' : `sum(${weight})`;
  return db
    .prepare(`WITH ${withClause} SELECT reason, ${n} AS n FROM candidates GROUP BY reason`)
    .all(params) as ReasonCount[];
}
