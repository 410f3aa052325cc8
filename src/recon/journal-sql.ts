import { JOURNAL_TABLE } from './working-tables.js';

/** SQL shared by the checks that read the merchant's order journal against the upstream. */

/**
 * `journal`: the merchant's API orders (every kind but TOPUP), `seq` giving journal order, each
 * with its FEE record when it has one: `fee_id`, `fee_card_id`, `fee_status`, `fee_amount`,
 * `fee_amount_minor`, `fee_currency`, `fee_created_at`, `fee_first_seen_at`. `unlinkable` says
 * why a row is not an accepted order with an `orderNo`; `succeeded` is 0 for a DECLINED FEE
 * record, 1 for any other (a PENDING one included), NULL without one. It reads the working table
 * `journal` (working-tables.ts), built once per merchant: a check using it lists `'journal'` in
 * its `uses`.
 */
export const JOURNAL_CTE = `journal AS (SELECT * FROM ${JOURNAL_TABLE})`;

/**
 * The version of offering `offering` whose terms were in force at `at`: the newest version
 * first seen at or before it, else the oldest one (the offering was first read after `at`, and
 * its first terms are the best knowledge of what applied).
 */
export function termsVersionSql(offering: string, at: string): string {
  return `coalesce(
    (SELECT max(v.version) FROM offering_versions v WHERE v.id = ${offering} AND v.observed_at <= ${at}),
    (SELECT min(v.version) FROM offering_versions v WHERE v.id = ${offering}))`;
}

/**
 * The join condition of `next`, the version of offering version `v`'s offering after it, when it
 * may already have been in force at `at`: the terms `v` holds were last seen before `at`, and the
 * upstream changed them at a moment the mirror cannot know, before the sync that first saw
 * `next` (sql/018). An order submitted in between may have been charged on either.
 */
export function nextTermsOn(next: string, v: string, at: string): string {
  return `${next}.id = ${v}.id AND ${next}.version = ${v}.version + 1
    AND ${next}.previous_seen_at < ${at}`;
}

/** An ISO 8601 instant as integer epoch milliseconds (exact: SQLite keeps milliseconds). */
export function epochMsSql(instant: string): string {
  return `CAST(round(unixepoch(${instant}, 'subsec') * 1000) AS INTEGER)`;
}
