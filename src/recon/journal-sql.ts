/**
 * SQL shared by the checks that read the merchant's order journal against the upstream. Every
 * statement that uses them binds `@merchantId`.
 */

/**
 * `fee_records`: each order's outcome, the FEE transaction whose `tradeNo` is its `orderNo`
 * (the earliest by `createdAt`, then id, should the upstream show more than one). Written with
 * `GROUP BY` and SQLite's bare columns of a `min()` row rather than a window function: SQLite
 * indexes a grouped CTE automatically when joining it, not a windowed one, and without that
 * index linking the journal is quadratic.
 */
export const FEE_RECORDS_CTE = `fee_records AS MATERIALIZED (
  SELECT trade_no, transaction_id, card_id, status, amount, amount_minor, currency, created_at,
         first_seen_at, min(created_at || ' ' || transaction_id) AS first_key
  FROM transactions
  WHERE merchant_id = @merchantId AND type = 'FEE'
  GROUP BY trade_no
)`;

/** Why a journal row cannot be linked to the upstream, or NULL when it can. */
const UNLINKABLE = `CASE
    WHEN o.state = 'REJECTED' THEN 'rejected by the upstream: not an order'
    WHEN nullif(o.order_no, '') IS NULL AND o.state = 'SUBMITTED'
      THEN 'submitted, acceptance not yet known (no orderNo)'
    WHEN nullif(o.order_no, '') IS NULL THEN 'no orderNo: cannot be linked'
  END`;

/**
 * `journal`: the merchant's API orders (every kind but TOPUP) in journal order (`seq`), each
 * with its FEE record when it has one (needs {@link FEE_RECORDS_CTE} before it). `unlinkable`
 * says why a row is not an accepted order with an `orderNo`; `succeeded` is 1 for a COMPLETED
 * (or SETTLED) FEE record, 0 for a DECLINED one, NULL without one.
 */
export const JOURNAL_CTE = `journal AS MATERIALIZED (
  SELECT o.rowid AS seq, o.merchant_order_no, o.kind, o.card_id, o.offering_id, o.amount,
         o.amount_minor, o.currency, o.submitted_at, nullif(o.order_no, '') AS order_no, o.state,
         ${UNLINKABLE} AS unlinkable,
         f.transaction_id AS fee_id, f.card_id AS fee_card_id, f.status AS fee_status,
         f.amount AS fee_amount, f.amount_minor AS fee_amount_minor, f.currency AS fee_currency,
         f.created_at AS fee_created_at, f.first_seen_at AS fee_first_seen_at,
         CASE WHEN f.transaction_id IS NULL THEN NULL
              WHEN f.status IN ('COMPLETED', 'SETTLED') THEN 1 ELSE 0 END AS succeeded
  FROM orders o
  LEFT JOIN fee_records f ON f.trade_no = nullif(o.order_no, '') AND o.state <> 'REJECTED'
  WHERE o.merchant_id = @merchantId AND o.kind <> 'TOPUP'
)`;

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

/** An ISO 8601 instant as integer epoch milliseconds (exact: SQLite keeps milliseconds). */
export function epochMsSql(instant: string): string {
  return `CAST(round(unixepoch(${instant}, 'subsec') * 1000) AS INTEGER)`;
}
