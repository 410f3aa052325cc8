import { describe, expect, it } from 'vitest';
import {
  exactSum,
  exactSumPartsSql,
  exactSumSql,
  exactSumValueSql,
} from '../../src/recon/exact-sum-sql.js';
import { useTempMirrors } from '../mirror/mirror-fixtures.js';

const temp = useTempMirrors();
const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);

/** The rows of `values` summed by each of the SQL of exact-sum-sql.ts, as bigints. */
function sums(values: readonly bigint[]) {
  const { db } = temp.open();
  db.exec('CREATE TEMP TABLE x (v INTEGER)');
  const insert = db.prepare('INSERT INTO temp.x (v) VALUES (?)');
  for (const v of values) insert.run(v);
  const row = db
    .prepare(
      `SELECT ${exactSumPartsSql('v_high', 'v_low', 'parts')},
              ${exactSumValueSql('v_high', 'v_low', 'value')}
       FROM (SELECT ${exactSumSql('v', 'v')} FROM temp.x)`,
    )
    .safeIntegers(true)
    .get() as Record<string, bigint | null>;
  return {
    parts: exactSum(row.parts_high ?? null, row.parts_low ?? null),
    value: row.value,
    valueParts: exactSum(row.value_high ?? null, row.value_low ?? null),
  };
}

describe('exact sums (exact-sum-sql.ts)', () => {
  // 2^53 - 1, the largest amount in minor units the sync takes, and an amount plus its fee.
  const amount = 2n ** 53n - 1n;
  const withFee = 2n * amount;

  it.each([
    ['nothing', [], null],
    ['a few amounts of either sign', [1250n, -99n, 0n, -amount], 1151n - amount],
    ['up to the largest integer', [MAX - 5n, 5n], MAX],
    ['down to the smallest', [MIN + 7n, -7n], MIN],
  ])('gives the sum itself within SQLite integers: %s', (_, values, total) => {
    expect(sums(values)).toEqual({ parts: total, value: total, valueParts: null });
  });

  it.each([
    ['one past the largest integer', [MAX, 1n], MAX + 1n],
    ['one below the smallest', [MIN, -1n], MIN - 1n],
    ['1,025 amounts of 2^53 - 1', Array(1025).fill(amount), 1025n * amount],
    ['3,000 amounts with fees, of both signs', Array(3000).fill(-withFee), -3000n * withFee],
  ])('gives the parts, exactly, past them: %s', (_, values, total) => {
    expect(sums(values)).toEqual({ parts: total, value: null, valueParts: total });
  });

  it('refuses a part a number cannot hold exactly', () => {
    expect(() => exactSum(2 ** 53, 0)).toThrow(RangeError);
  });
});
