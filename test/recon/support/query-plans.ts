/**
 * The query plans of what a check runs, for the tests that pin how a check's work grows: at
 * real merchants' sizes (one card with 20,000 FREEZE and UNFREEZE orders, 200,000 transactions)
 * a lookup repeated per row over a card's whole history takes hours, while the same answer from
 * one pass takes seconds; the plan shows which, with no clock.
 */
import type { SqliteDatabase } from '../../../src/mirror/sqlite-database.js';

/** One step of a plan: `EXPLAIN QUERY PLAN`'s `detail`, and the steps it runs (`steps`). */
export interface PlanStep {
  readonly detail: string;
  readonly steps: readonly PlanStep[];
}

/**
 * The plan of every statement prepared on `db` while `work` runs, taken when it is prepared (the
 * temporary working tables it reads exist then), as a tree per statement.
 */
export function plansDuring(db: SqliteDatabase, work: () => unknown): PlanStep[][] {
  const plans: PlanStep[][] = [];
  const prepare = db.prepare;
  db.prepare = ((sql: string) => {
    if (/^\s*(WITH|SELECT)\b/i.test(sql)) plans.push(planOf(db, prepare, sql));
    return prepare.call(db, sql);
  }) as typeof db.prepare;
  try {
    work();
  } finally {
    db.prepare = prepare;
  }
  return plans;
}

function planOf(db: SqliteDatabase, prepare: SqliteDatabase['prepare'], sql: string): PlanStep[] {
  const statement = prepare.call(db, `EXPLAIN QUERY PLAN ${sql}`);
  // The plan does not depend on the values bound: bind each parameter NULL.
  const names = [...sql.matchAll(/@(\w+)/g)].map((m) => m[1] as string);
  const rows = statement.all(
    names.length > 0
      ? Object.fromEntries(names.map((name) => [name, null]))
      : Array.from(sql.matchAll(/\?/g), () => null),
  ) as { id: number; parent: number; detail: string }[];
  // Parents come before their steps; 0 is the statement itself.
  const steps = new Map<number, PlanStep[]>([[0, []]]);
  for (const row of rows) {
    const own: PlanStep[] = [];
    steps.set(row.id, own);
    steps.get(row.parent)?.push({ detail: row.detail, steps: own });
  }
  return steps.get(0) ?? [];
}

/**
 * The reads (`SCAN`, `SEARCH`) that run once per row of an outer query: those below a correlated
 * subquery, each as the subquery's `detail`, a colon, and the read's.
 */
export function perRowReadsOf(plans: readonly PlanStep[][]): string[] {
  const readsBelow = (step: PlanStep): string[] =>
    step.steps.flatMap((s) => [
      ...(/^(SCAN|SEARCH)\b/.test(s.detail) ? [s.detail] : []),
      ...readsBelow(s),
    ]);
  const found = (step: PlanStep): string[] => [
    ...(step.detail.startsWith('CORRELATED')
      ? readsBelow(step).map((read) => `${step.detail}: ${read}`)
      : []),
    ...step.steps.flatMap(found),
  ];
  return plans.flatMap((plan) => plan.flatMap(found));
}

/**
 * The loops that run inside another loop of the same query, as `outer > inner`: in a plan, each
 * `SCAN` or `SEARCH` step runs once per row of the steps before it at its level.
 */
export function nestedLoopsOf(plans: readonly PlanStep[][]): string[] {
  const nests = (steps: readonly PlanStep[]): string[] => {
    const loops = steps.filter((s) => /^(SCAN|SEARCH)\b/.test(s.detail));
    return [
      ...loops.slice(1).map((inner, i) => `${loops[i]?.detail} > ${inner.detail}`),
      ...steps.flatMap((s) => nests(s.steps)),
    ];
  };
  return plans.flatMap(nests);
}
