import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { exactSum, exactSumPartsSql, exactSumSql } from '../exact-sum-sql.js';
import { type Finding, makeFinding } from '../finding.js';
import { JOURNAL_CTE } from '../journal-sql.js';
import { moneyText } from '../money-text.js';
import { QUARANTINED_CTE, QUARANTINED_REASON } from '../quarantined-sql.js';
import { statusesVerifiedOnce } from '../statuses-verified.js';
import { explainedBySubset } from '../subset-explanation.js';
import { transactionEffectSql, visibleAtReadSql } from '../transaction-effect-sql.js';
import { CARD_TRANSACTIONS_TABLE, JOURNAL_TABLE } from '../working-tables.js';

const CODE = 'CARD_BALANCE_MISMATCH';

/** What journal order `j` moves on its card: a withdrawal takes its amount off, others add it. */
const ORDER_AMOUNT_SQL = "CASE j.kind WHEN 'WITHDRAW' THEN -j.amount_minor ELSE j.amount_minor END";

/**
 * The journal orders `j` a card's ledger counts: issues, deposits and withdrawals that succeeded
 * and are linked to their FEE record. {@link CANDIDATES}' sums and the terms of a read's
 * neighbourhood ({@link ledgerEffectSql}) both take them from here, so the two agree.
 */
const COUNTED_ORDER_SQL =
  "j.kind IN ('ISSUE', 'DEPOSIT', 'WITHDRAW') AND j.unlinkable IS NULL AND j.succeeded = 1";

/**
 * Per card: the completed ISSUE and DEPOSIT amounts less the completed WITHDRAW amounts of its
 * journal orders (amounts from the journal), and the effect of its transactions, each counted
 * only when the balance read could reflect it (see {@link visibleAtReadSql}). A card whose every
 * transaction could be reflected (`visible_at`, the usual case) takes its sums from the working
 * table `cardTransactions`; only the others are read again, transaction by transaction. A card
 * with a journal DEPOSIT or WITHDRAW that has no `orderNo` (`unknown_orders`) is left out: the
 * ledger holds for a card whose orders are all known (reference-model section 4). So is a card
 * with a completed order journaled, or a transaction, in another currency than its own (one
 * currency per account, section 3): minor units of two currencies do not add up. An order
 * counts there only when the balance read could reflect it, as in the sums: one completed after
 * the read adds nothing to this run's ledger, so the card is still checked. Sums are
 * taken in the two parts of exact-sum-sql.ts (`_high`, `_low`): a card's ledger may pass
 * SQLite's integer range (2^63), where sum() fails the statement and + turns to a float.
 */
const CANDIDATES = `${JOURNAL_CTE},
issued AS MATERIALIZED (
  SELECT DISTINCT fee_card_id AS card_id FROM journal
  WHERE kind = 'ISSUE' AND unlinkable IS NULL AND fee_card_id IS NOT NULL
),
${QUARANTINED_CTE},
unknown_orders AS MATERIALIZED (
  SELECT DISTINCT card_id FROM journal
  WHERE kind IN ('DEPOSIT', 'WITHDRAW') AND card_id IS NOT NULL AND unlinkable IS NOT NULL
    AND state <> 'REJECTED'
),
order_sums AS MATERIALIZED (
  SELECT j.fee_card_id AS card_id, count(*) AS orders,
         ${exactSumSql(ORDER_AMOUNT_SQL, 'total')},
         sum(j.amount_minor IS NULL) AS unusable, max(j.currency <> c.currency) AS foreign_currency
  FROM journal j JOIN cards c ON c.card_id = j.fee_card_id AND c.merchant_id = @merchantId
  WHERE ${COUNTED_ORDER_SQL}
    AND ${visibleAtReadSql('j.fee_created_at', 'j.fee_first_seen_at', 'c.observed_at')}
  GROUP BY j.fee_card_id
),
card_sums AS MATERIALIZED (
  SELECT c.card_id, c.observed_at, max(s.visible_at) <= c.observed_at AS all_visible,
         sum(s.effect_high) AS total_high, sum(s.effect_low) AS total_low,
         sum(s.unusable) AS unusable, sum(s.transactions) AS counted,
         max(s.currency <> c.currency) AS foreign_currency
  FROM cards c JOIN ${CARD_TRANSACTIONS_TABLE} s ON s.card_id = c.card_id
  WHERE c.merchant_id = @merchantId
  GROUP BY c.card_id, c.observed_at
),
effects AS (
  SELECT t.card_id, ${transactionEffectSql('t')} AS effect,
         ${visibleAtReadSql('t.created_at', 't.first_seen_at', 'r.observed_at')} AS visible
  FROM card_sums r CROSS JOIN transactions t
  WHERE NOT r.all_visible AND t.card_id = r.card_id AND t.merchant_id = @merchantId
),
transaction_sums AS MATERIALIZED (
  SELECT card_id, total_high, total_low, unusable, counted, 0 AS later
  FROM card_sums WHERE all_visible
  UNION ALL
  SELECT card_id, ${exactSumSql('CASE WHEN visible THEN effect END', 'total')},
         sum(visible AND effect IS NULL) AS unusable, sum(visible) AS counted,
         sum(NOT visible) AS later
  FROM effects GROUP BY card_id
),
candidates AS (
  SELECT c.card_id, c.status, c.balance_minor, c.currency, c.observed_at,
         CASE WHEN c.status = 'CANCELLED' THEN 0
              ELSE coalesce(o.total_high, 0) + coalesce(s.total_high, 0) END AS expected_high,
         CASE WHEN c.status = 'CANCELLED' THEN 0
              ELSE coalesce(o.total_low, 0) + coalesce(s.total_low, 0) END AS expected_low,
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
             THEN 'balance read after the last fully synced transaction (a sync that stopped part-way, or a card read by the missing-card check at its end): checked by the next run'
           WHEN c.status = 'CANCELLED' THEN NULL
           WHEN c.card_id IN (SELECT card_id FROM unknown_orders)
             THEN 'a DEPOSIT or WITHDRAW of the card has no orderNo: its outcome cannot be linked'
           WHEN coalesce(o.foreign_currency, 0)
             THEN 'a completed order of the card is journaled in another currency than the card''s: its amount cannot be added'
           WHEN c.card_id IN (SELECT card_id FROM card_sums WHERE foreign_currency)
             THEN 'a transaction of the card is in another currency than the card''s (CURRENCY_MISMATCH): its amount cannot be added'
           WHEN c.card_id IN (SELECT card_id FROM quarantined_transactions)
             THEN '${QUARANTINED_REASON}'
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
 * What transaction `t` moves in the ledger: its own effect, and for the FEE record of a
 * succeeded ISSUE, DEPOSIT or WITHDRAW, the order's amount too, which `order_sums` counts exactly
 * when it counts the FEE record. A read on the other side of that record is on the other side of
 * the order's outcome: the two come and go together, as one term.
 */
function ledgerEffectSql(t: string): string {
  return `${transactionEffectSql(t)} + coalesce((
    SELECT sum(${ORDER_AMOUNT_SQL}) FROM ${JOURNAL_TABLE} j
    WHERE j.fee_id = ${t}.transaction_id AND ${COUNTED_ORDER_SQL}), 0)`;
}

/**
 * The effects of a card's transactions created before its balance was read but first mirrored
 * after it: most were simply listed later in the run, but one may have posted late (become
 * visible after its `createdAt`, reference-model section 4), after the read.
 */
const MIRRORED_AFTER_READ = `
SELECT t.transaction_id AS id, ${ledgerEffectSql('t')} AS effect, t.created_at AS at
FROM transactions t
WHERE t.card_id = @cardId AND t.merchant_id = @merchantId
  AND t.created_at <= @observedAt AND t.first_seen_at > @observedAt`;

/**
 * For each transaction of a card mirrored before its balance was read whose status changed
 * after that read (as first observed), what the change did to the ledger: its effect now less
 * its effect in the status it had before. The read may have come before the change (a PENDING
 * refund completing, a PENDING purchase declined while the sync read other cards), so the
 * balance may still show the old effect.
 *
 * And for each one created before the read but first mirrored after it in another status than
 * PENDING, the same for the PENDING it may have been at the read: a purchase that expired
 * (section 4) whose amount the read still held, a refund that completed which it held at 0. The
 * mirror never saw that status. The change came between the read and that first mirroring, so
 * it is dated by the latter: its `createdAt` may lie days before, beyond the terms nearest the
 * read that a first sync's many transactions mirrored after it are narrowed to. A status whose
 * effect equals its PENDING's (a purchase COMPLETED) gives no term; not posting at all is
 * {@link MIRRORED_AFTER_READ}'s account.
 */
const STATUS_CHANGED_AFTER_READ = `
SELECT p.transaction_id AS id, ${transactionEffectSql('t')} - ${transactionEffectSql('p')} AS effect,
       p.first_change AS at
FROM (
  SELECT t.transaction_id, t.type, t.amount_minor, t.fee_minor, s.from_status AS status,
         min(s.observed_at) AS first_change
  FROM transactions t
  JOIN transaction_status_changes s ON s.transaction_id = t.transaction_id
  WHERE t.card_id = @cardId AND t.merchant_id = @merchantId AND t.first_seen_at <= @observedAt
    AND s.observed_at > @observedAt
  GROUP BY t.transaction_id
) p
JOIN transactions t ON t.transaction_id = p.transaction_id
UNION ALL
SELECT p.transaction_id AS id, ${transactionEffectSql('t')} - ${transactionEffectSql('p')} AS effect,
       t.first_seen_at AS at
FROM (
  SELECT t.transaction_id, t.type, t.amount_minor, t.fee_minor, 'PENDING' AS status
  FROM transactions t
  WHERE t.card_id = @cardId AND t.merchant_id = @merchantId AND t.status <> 'PENDING'
    AND t.created_at <= @observedAt AND t.first_seen_at > @observedAt
) p
JOIN transactions t ON t.transaction_id = p.transaction_id`;

/**
 * How far a card's `observed_at` may lie from the moment the upstream read its balance. The sync
 * stamps reads on its estimate of the upstream's clock (src/api/upstream-clock.ts), within half a
 * second of it, and within a round trip or so once answers have crossed a second; a step of the
 * upstream's clock during the run restarts the estimate at half a second. One second covers both.
 */
const READ_STAMP_UNCERTAINTY_MS = 1000;

/**
 * The transactions of a card created within {@link READ_STAMP_UNCERTAINTY_MS} of its read, as a
 * term that would correct the ledger if the read in fact came on the other side of them: the
 * effect of one the ledger counts (it may not have posted yet when the balance was read), the
 * negated effect of one it leaves out (it may have). Those mirrored after the read although
 * created before it are {@link MIRRORED_AFTER_READ}'s.
 */
const CREATED_NEAR_READ = `
SELECT t.transaction_id AS id, CASE WHEN ${visibleAtReadSql('t.created_at', 't.first_seen_at', '@observedAt')}
            THEN ${ledgerEffectSql('t')} ELSE -(${ledgerEffectSql('t')}) END AS effect,
       t.created_at AS at
FROM transactions t
WHERE t.card_id = @cardId AND t.merchant_id = @merchantId
  AND t.created_at BETWEEN @nearFrom AND @nearTo
  AND NOT (t.created_at <= @observedAt AND t.first_seen_at > @observedAt)`;

/** A term that may explain a card's difference, and the upstream time it moved the balance at. */
interface Term {
  /** The transaction: two terms of one are two accounts of it, never both true. */
  readonly id: string;
  readonly effect: bigint;
  readonly at: string;
}

/** Why a card whose difference late postings would explain is not judged this run. */
const POSTED_LATE_REASON =
  'the difference is the effect of transactions created before the balance was read and first mirrored after it (posted late?): checked by the next run';

/** Why a card whose difference status changes after its read would explain is not judged this run. */
const STATUS_CHANGED_REASON =
  'the difference is the effect of status changes first mirrored after the balance was read: checked by the next run';

/** Why a card whose difference transactions created at about the time of its read would explain is not judged this run. */
const NEAR_READ_REASON =
  'the difference is the effect of transactions created within a second of the balance read, which may have come before or after them: checked by the next run';

/**
 * Why a card with an unexplained difference is not judged after a sync whose count audit did not
 * finish: the audit is what catches a status change or late posting of a row older than the
 * lookback, which the balance read already shows (a hold of days ago that expired).
 */
const UNVERIFIED_REASON =
  "the last sync's count audit did not finish: a status change or late posting of an older transaction may not be mirrored: checked by the next run";

/**
 * True when leaving some of `terms` out of `expected` gives `balance` (within `tolerance`): the
 * read at `observedAt` may have come before they posted (or changed status). The terms nearest
 * the read are tried first when there are many ({@link explainedBySubset}), since a first sync
 * mirrors a card's whole history after its read, and what the read missed is most likely what
 * happened at about its time.
 */
function explainedByLatePostings(
  balance: bigint,
  expected: bigint,
  terms: readonly Term[],
  tolerance: bigint,
  observedAt: string,
): boolean {
  const read = Date.parse(observedAt);
  const distanced = terms.map((t) => ({ ...t, distance: Math.abs(Date.parse(t.at) - read) }));
  return explainedBySubset(balance, expected, distanced, tolerance);
}

/**
 * CARD_BALANCE_MISMATCH: a card whose ISSUE order is linked reports another balance than the
 * ledger of reference-model.md section 4: 0 once CANCELLED, else its completed ISSUE and DEPOSIT
 * amounts less its completed WITHDRAW amounts plus the effect of its transactions. A balance is
 * compared with the records visible when it was read (`cards.observed_at`): a transaction or
 * order outcome created after that read and not mirrored before it is left to the next run.
 * So is a card whose difference is exactly the effect of some transactions created before the
 * read but first mirrored after it (the upstream may have posted them after the read), or of
 * some status changes first mirrored after it (the read may have come before them), or of some
 * transactions created within a second of it (the read's stamp is that close to the truth), or
 * any difference after a sync whose count audit did not finish (`statusesVerified`).
 */
export const cardBalanceMismatch: Check = {
  code: CODE,
  severity: 'error',
  description:
    "a card's reported balance differs from its ledger (completed orders and transactions visible at the read)",
  uses: ['journal', 'cardTransactions'],
  run({ db, merchantId, range, settings }: CheckContext) {
    const tolerance = settings.tolerances[CODE];
    const mirroredAfterRead = db.prepare(MIRRORED_AFTER_READ).safeIntegers(true);
    const statusChangedAfterRead = db.prepare(STATUS_CHANGED_AFTER_READ).safeIntegers(true);
    const createdNearRead = db.prepare(CREATED_NEAR_READ).safeIntegers(true);
    const effectsOf = (
      statement: typeof mirroredAfterRead,
      c: { cardId: string; observedAt: string },
      more: Record<string, string> = {},
    ): Term[] =>
      (
        statement.all({ cardId: c.cardId, merchantId, observedAt: c.observedAt, ...more }) as {
          id: string;
          effect: bigint | null;
          at: string;
        }[]
      ).filter((t): t is Term => t.effect !== null && t.effect !== 0n);
    const nearReadEffects = (c: { cardId: string; observedAt: string }): Term[] => {
      const read = Date.parse(c.observedAt);
      return effectsOf(createdNearRead, c, {
        nearFrom: new Date(read - READ_STAMP_UNCERTAINTY_MS).toISOString(),
        nearTo: new Date(read + READ_STAMP_UNCERTAINTY_MS).toISOString(),
      });
    };
    // One pass over the candidates yields both the findings and the coverage.
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT card_id AS cardId, status, balance_minor AS balance, currency,
                observed_at AS observedAt, ${exactSumPartsSql('expected_high', 'expected_low', 'expected')},
                orders, counted, later, reason
         FROM candidates`,
      )
      .iterate({
        merchantId,
        start: range.start,
        through: range.through,
      }) as IterableIterator<{
      cardId: string;
      status: string;
      balance: number;
      currency: string;
      observedAt: string;
      /** The parts of an exact sum: the ledger may pass 2^53, where a number loses cents. */
      expected_high: number;
      expected_low: number;
      orders: number;
      counted: number;
      later: number;
      reason: string | null;
    }>;
    const tally = new CoverageTally().examine('cards', 0).examine('transactions', 0);
    // Asked only when a card's difference is unexplained: most runs never need it.
    const verified = statusesVerifiedOnce(db, merchantId);
    const findings: Finding[] = [];
    let counted = 0;
    let later = 0;
    for (const c of rows) {
      if (c.reason !== null) {
        tally.skip('cards', c.reason).leaveOpen('cardId', [c.cardId]);
        continue;
      }
      const expectedMinor = exactSum(c.expected_high, c.expected_low) ?? 0n;
      const balance = BigInt(c.balance);
      const difference = balance - expectedMinor;
      const mismatch = (difference < 0n ? -difference : difference) > BigInt(tolerance);
      if (mismatch && c.status !== 'CANCELLED') {
        const late = effectsOf(mirroredAfterRead, c);
        const changed = [...late, ...effectsOf(statusChangedAfterRead, c)];
        const explained = (terms: readonly Term[]) =>
          explainedByLatePostings(balance, expectedMinor, terms, BigInt(tolerance), c.observedAt);
        const reason = explained(late)
          ? POSTED_LATE_REASON
          : explained(changed)
            ? STATUS_CHANGED_REASON
            : explained([...changed, ...nearReadEffects(c)])
              ? NEAR_READ_REASON
              : verified()
                ? null
                : UNVERIFIED_REASON;
        if (reason !== null) {
          tally.skip('cards', reason).leaveOpen('cardId', [c.cardId]);
          continue;
        }
      }
      tally.examine('cards');
      if (c.status !== 'CANCELLED') {
        counted += c.counted;
        later += c.later;
      }
      if (!mismatch) continue;
      const expected = moneyText(expectedMinor, c.currency);
      const actual = moneyText(c.balance, c.currency);
      const ledger =
        c.status === 'CANCELLED'
          ? `a CANCELLED card holds ${expected ?? expectedMinor}`
          : `the ledger says ${expected ?? expectedMinor} (${c.orders} completed orders, ${c.counted} transactions)`;
      findings.push(
        makeFinding(CODE, merchantId, {
          cardId: c.cardId,
          currency: c.currency,
          expected,
          actual,
          delta: moneyText(difference, c.currency),
          detail: `${c.status} card reports ${actual ?? c.balance} ${c.currency} at ${c.observedAt}; ${ledger}`,
        }),
      );
    }
    tally
      .examine('transactions', counted)
      .skip(
        'transactions',
        "created after its card's balance was read: counted by the next run",
        later,
      );
    return tally.outcome(CODE, merchantId, findings);
  },
};
