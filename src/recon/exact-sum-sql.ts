/*
 * SQLite's sum() throws "integer overflow" once a total passes 2^63 - 1, which fails the whole
 * statement: one trade of 1,025 refunds of 2^53 - 1 minor units (each a valid amount) stopped
 * every check of the reconciliation. total() does not throw but is a float. So a sum of amounts
 * is taken in two parts that cannot overflow, and joined exactly in JavaScript.
 */

/** 2^32: the weight of a sum's high part. */
const LOW_BITS = 32n;

/**
 * Two aggregates, `<as>_high` and `<as>_low`, that sum integer `x` exactly however large the
 * total grows: the sum of `x >> 32` (arithmetic: negative values keep their sign) and of
 * `x & 0xffffffff` (always 0 to 2^32 - 1). With `x` below 2^54 in magnitude (an amount plus a
 * fee, each under 2^53), neither part can pass 2^63 before 2^31 rows. NULL, as sum(), when no
 * row has a value. Join them with {@link exactSum}; parts of several sums add up part by part
 * (`a_high + b_high`, `a_low + b_low`), and summing parts again (`sum(a_high)`, `sum(a_low)`)
 * keeps them exact as long as the rows beneath stay under 2^31.
 * @example db.prepare(`SELECT card_id, ${exactSumSql('amount_minor', 'total')} FROM transactions GROUP BY card_id`)
 */
export function exactSumSql(x: string, as: string): string {
  return `sum((${x}) >> 32) AS ${as}_high, sum((${x}) & 4294967295) AS ${as}_low`;
}

/**
 * The parts `<as>_high` and `<as>_low` of a sum whose parts are the SQL expressions `high` and
 * `low`, with the carry of the low part moved into the high one: both then stay within 2^53
 * (a JavaScript number reads them exactly) for up to 2^31 rows beneath.
 */
export function exactSumPartsSql(high: string, low: string, as: string): string {
  return `(${high}) + ((${low}) >> 32) AS ${as}_high, (${low}) & 4294967295 AS ${as}_low`;
}

/**
 * The sum whose parts are the SQL expressions `high` and `low` as `<as>` when it lies within
 * SQLite's integers (read it with `safeIntegers`: past 2^53 a number loses units), else NULL,
 * with the normalized parts `<as>_high` and `<as>_low` (NULL when `<as>` is not): join those
 * with {@link exactSum}. Cheaper to read than two parts for every row, when most sums fit.
 */
export function exactSumValueSql(high: string, low: string, as: string): string {
  const carried = `((${high}) + ((${low}) >> 32))`;
  const fits = `${carried} BETWEEN -2147483648 AND 2147483647`;
  return `CASE WHEN ${fits} THEN ${carried} * 4294967296 + ((${low}) & 4294967295) END AS ${as},
    CASE WHEN ${fits} THEN NULL ELSE ${carried} END AS ${as}_high,
    CASE WHEN ${fits} THEN NULL ELSE (${low}) & 4294967295 END AS ${as}_low`;
}

/** A part of a sum as better-sqlite3 returns it. */
type Part = number | bigint | null;

/**
 * The exact total of a sum taken by {@link exactSumSql}: `high * 2^32 + low`, or null when both
 * parts are (no row had a value).
 * @example exactSum(2147483647, 4294967295) // 9223372036854775807n
 */
export function exactSum(high: Part, low: Part): bigint | null {
  if (high === null && low === null) return null;
  return (bigintOf(high) << LOW_BITS) + bigintOf(low);
}

function bigintOf(part: Part): bigint {
  if (part === null) return 0n;
  // A number past 2^53 was already rounded by the driver: read such a part as a bigint.
  if (typeof part === 'number' && !Number.isSafeInteger(part))
    throw new RangeError(`a part of an exact sum is no safe integer: ${part}`);
  return BigInt(part);
}
