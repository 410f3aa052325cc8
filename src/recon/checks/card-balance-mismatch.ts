import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { FEE_RECORDS_CTE, JOURNAL_CTE } from '../journal-sql.js';
import { moneyText } from '../money-text.js';
import { transactionEffectSql, visibleAtReadSql } from '../transaction-effect-sql.js';

const CODE = 'CARD_BALANCE_MISMATCH';

/**
 * Per card: the completed ISSUE and DEPOSIT amounts less the completed WITHDRAW amounts of its
 * journal orders (amounts from the journal), and the effect of its transactions, each counted
 * only when the balance read could reflect it (see {@link visibleAtReadSql}).
 */
const CANDIDATES = `${FEE_RECORDS_CTE}, ${JOURNAL_CTE},
issued AS MATERIALIZED (
  SELECT DISTINCT fee_card_id AS card_id FROM journal
  WHERE kind = 'ISSUE' AND unlinkable IS NULL AND fee_card_id IS NOT NULL
),
order_sums AS MATERIALIZED (
  SELECT j.fee_card_id AS card_id, count(*) AS orders,
         sum(CASE j.kind WHEN 'WITHDRAW' THEN -j.amount_minor ELSE j.amount_minor END) AS total,
         sum(j.amount_minor IS NULL) AS unusable
  FROM journal j JOIN cards c ON c.card_id = j.fee_card_id AND c.merchant_id = @merchantId
  WHERE j.kind IN ('ISSUE', 'DEPOSIT', 'WITHDRAW') AND j.unlinkable IS NULL AND j.succeeded = 1
    AND ${visibleAtReadSql('j.fee_created_at', 'j.fee_first_seen_at', 'c.observed_at')}
  GROUP BY j.fee_card_id
),
effects AS (
  SELECT t.card_id, ${transactionEffectSql('t')} AS effect,
         ${visibleAtReadSql('t.created_at', 't.first_seen_at', 'c.observed_at')} AS visible
  FROM transactions t JOIN cards c ON c.card_id = t.card_id AND c.merchant_id = t.merchant_id
  WHERE t.merchant_id = @merchantId
),
transaction_sums AS MATERIALIZED (
  SELECT card_id, sum(CASE WHEN visible THEN effect END) AS total,
         sum(visible AND effect IS NULL) AS unusable, sum(visible) AS counted,
         sum(NOT visible) AS later
  FROM effects GROUP BY card_id
),
candidates AS (
  SELECT c.card_id, c.status, c.balance_minor, c.currency, c.observed_at,
         CASE WHEN c.status = 'CANCELLED' THEN 0
              ELSE coalesce(o.total, 0) + coalesce(s.total, 0) END AS expected,
         coalesce(o.orders, 0) AS orders, coalesce(s.counted, 0) AS counted,
         coalesce(s.later, 0) AS later,
         CASE
           WHEN @start IS NOT NULL AND c.created_at < @start
             THEN 'issued before the synced range: its orders'' outcomes are not mirrored'
           WHEN c.card_id NOT IN (SELECT card_id FROM issued)
             THEN 'no linked ISSUE order in the journal (UNJOURNALED_CARD)'
           WHEN c.balance_minor IS NULL
             THEN 'balance too precise for its currency (PRECISION_VIOLATION)'
           WHEN @through IS NOT NULL AND c.observed_at > @through
             THEN 'balance read after the last fully synced transaction (incomplete sync)'
           WHEN c.status = 'CANCELLED' THEN NULL
           WHEN coalesce(o.unusable, 0) > 0
             THEN 'a completed order''s journal amount is missing or too precise'
           WHEN coalesce(s.unusable, 0) > 0
             THEN 'a transaction''s amount or fee is too precise for its currency (PRECISION_VIOLATION)'
         END AS reason
  FROM cards c
  LEFT JOIN order_sums o ON o.card_id = c.card_id
  LEFT JOIN transaction_sums s ON s.card_id = c.card_id
  WHERE c.merchant_id = @merchantId
)`;

/**
 * CARD_BALANCE_MISMATCH: a card whose ISSUE order is linked reports another balance than the
 * ledger of reference-model.md section 4: 0 once CANCELLED, else its completed ISSUE and DEPOSIT
 * amounts less its completed WITHDRAW amounts plus the effect of its transactions. A balance is
 * compared with the records visible when it was read (`cards.observed_at`): a transaction or
 * order outcome created after that read and not mirrored before it is left to the next run.
 */
export const cardBalanceMismatch: Check = {
  code: CODE,
  severity: 'error',
  description:
    "a card's reported balance differs from its ledger (completed orders and transactions visible at the read)",
  run({ db, merchantId, range, settings }: CheckContext) {
    const params = { merchantId, start: range.start, through: range.through };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT card_id AS cardId, status, balance_minor AS balance, currency,
                observed_at AS observedAt, expected, orders, counted
         FROM candidates
         WHERE reason IS NULL AND abs(balance_minor - expected) > @tolerance
         ORDER BY card_id`,
      )
      .all({ ...params, tolerance: settings.tolerances[CODE] }) as {
      cardId: string;
      status: string;
      balance: number;
      currency: string;
      observedAt: string;
      expected: number;
      orders: number;
      counted: number;
    }[];
    const findings = rows.map((c) => {
      const expected = moneyText(c.expected, c.currency);
      const actual = moneyText(c.balance, c.currency);
      const ledger =
        c.status === 'CANCELLED'
          ? 'a CANCELLED card holds 0'
          : `the ledger says ${expected ?? c.expected} (${c.orders} completed orders, ${c.counted} transactions)`;
      return makeFinding(CODE, merchantId, {
        cardId: c.cardId,
        currency: c.currency,
        expected,
        actual,
        delta: moneyText(c.balance - c.expected, c.currency),
        detail: `${c.status} card reports ${actual ?? c.balance} ${c.currency} at ${c.observedAt}; ${ledger}`,
      });
    });
    const groups = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT reason, count(*) AS n,
                coalesce(sum(CASE WHEN status <> 'CANCELLED' THEN counted END), 0) AS counted,
                coalesce(sum(CASE WHEN status <> 'CANCELLED' THEN later END), 0) AS later
         FROM candidates GROUP BY reason`,
      )
      .all(params) as { reason: string | null; n: number; counted: number; later: number }[];
    const tally = new CoverageTally().addGrouped('cards', groups).examine('transactions', 0);
    for (const group of groups.filter((g) => g.reason === null)) {
      tally
        .examine('transactions', group.counted)
        .skip(
          'transactions',
          "created after its card's balance was read: counted by the next run",
          group.later,
        );
    }
    return { findings, coverage: tally.result(CODE, merchantId) };
  },
};
