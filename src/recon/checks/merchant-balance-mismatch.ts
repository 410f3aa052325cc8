import type { SqliteDatabase } from '../../mirror/sqlite-database.js';
import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { exactSum, exactSumSql } from '../exact-sum-sql.js';
import { type Finding, makeFinding } from '../finding.js';
import { JOURNAL_CTE } from '../journal-sql.js';
import { moneyText } from '../money-text.js';
import { QUARANTINED_CTE } from '../quarantined-sql.js';
import { statusesVerifiedOnce } from '../statuses-verified.js';
import { type ExplainingTerm, explainedBySubset } from '../subset-explanation.js';
import { transactionEffectSql } from '../transaction-effect-sql.js';

const CODE = 'MERCHANT_BALANCE_MISMATCH';

interface Snapshot {
  readonly observedAt: string;
  readonly at: number;
  readonly balanceMinor: number | null;
  readonly currency: string;
}

interface JournalRow {
  readonly merchantOrderNo: string;
  readonly kind: string;
  readonly orderNo: string | null;
  readonly cardId: string | null;
  readonly amountMinor: number | null;
  readonly submittedAt: string;
  readonly state: string;
  readonly unlinkable: string | null;
  readonly succeeded: number | null;
  readonly feeCardId: string | null;
  readonly feeCreatedAt: string | null;
}

/**
 * A movement of the merchant balance the journal explains; `amount` null when unknowable. In
 * bigints: a cancelled card's ledger may pass 2^53 minor units on the way to its balance.
 */
interface Flow {
  readonly at: number;
  readonly amount: () => bigint | null;
  /** The journal row it comes from (`merchant_order_no`). */
  readonly order: string;
  /**
   * A CANCEL's: what the ledger counts in the cancelled card's balance that the balance at the
   * CANCEL may not have held ({@link cancelledCardTerms}).
   */
  readonly terms?: () => ExplainingTerm[];
}

/**
 * Why an interval ending after `through` is not judged: the balance read may show an order's
 * outcome (a WITHDRAW completed, a DEPOSIT declined) whose FEE record a sync that stopped
 * part-way did not mirror, while the snapshot step finished. Only such a sync leaves one: the
 * tail window, which ends at `through`, is planned once the balance is in. It stopped
 * `incomplete`, `interrupted` (a signal) or `unauthorized`: the next run that completes reads
 * the transactions up to the snapshot and judges the interval.
 */
const AFTER_SYNCED_REASON =
  'a snapshot taken after the last fully synced transaction (a sync that stopped part-way): an order outcome before it may not be mirrored: checked by the next run';

/**
 * Why an interval reaching before the unbroken synced range is not judged, as above: a sync
 * left a gap after its earlier snapshot while the windows after the gap landed. A window that
 * failed (`incomplete`) leaves one, and so does a signal (`interrupted`) with a window in
 * flight, none failed. The next run reads the gap again and judges the interval.
 */
const BEFORE_SYNCED_REASON =
  'a snapshot taken before the synced range (a sync that stopped part-way left a gap after it): an order outcome after it may not be mirrored: checked by the next run';

/**
 * Why an interval with an unexplained difference is not judged after a sync whose count audit
 * did not finish: the audit is what catches a FEE record's later status change (a DEPOSIT's fee
 * DECLINED days on, its amount given back), which the balance read already shows.
 */
const UNVERIFIED_REASON =
  "the last sync's count audit did not finish: an order outcome's status change may not be mirrored: checked by the next run";

/** Why an interval whose difference a cancelled card's later changes would explain is not judged. */
const CANCELLED_CARD_REASON =
  'the difference is the effect of transactions of a card cancelled in between that posted or changed status after its CANCEL, when the card kept none of it';

/**
 * MERCHANT_BALANCE_MISMATCH: between two consecutive balance snapshots, the change differs from
 * the journal's flows between them (reference-model.md section 3): TOPUP +; ISSUE and DEPOSIT −
 * at submission, + back when their outcome is DECLINED; a completed WITHDRAW +; a completed
 * CANCEL + the card's ledger balance just before it. Flows that follow an outcome are timed by
 * their FEE record. An interval with a journal order (submission or outcome) within `quietMs`
 * (2 minutes) of either snapshot is skipped: which side of the read it fell on is unknowable.
 * A REJECTED order moved nothing and skips nothing. An interval whose difference is exactly what
 * transactions of a card cancelled in it posted or changed after its CANCEL would move (the
 * CANCEL returned the balance then; the ledger counts them now) is not judged.
 * An interval not within the unbroken synced range (`range.start` to `range.through`) is not
 * judged: a sync that failed part-way may have read the balance but not the FEE records of the
 * outcomes it shows. Every other interval of the mirror's history is checked, so an unexplained
 * movement stays a finding until it is explained (a journal row imported later) or acknowledged.
 */
export const merchantBalanceMismatch: Check = {
  code: CODE,
  severity: 'error',
  description:
    "between two merchant balance snapshots, the change differs from the journal's flows in between",
  uses: ['journal'],
  run({ db, merchantId, range, settings }: CheckContext) {
    const tally = new CoverageTally().examine('intervals', 0).examine('orders', 0);
    // Asked only for an interval whose difference is unexplained: most runs never need it.
    const verified = statusesVerifiedOnce(db, merchantId);
    const start = range.start === null ? null : Date.parse(range.start);
    const through = range.through === null ? null : Date.parse(range.through);
    const snapshots = (
      db
        .prepare(
          `SELECT observed_at AS observedAt, balance_minor AS balanceMinor, currency
           FROM merchant_balances WHERE merchant_id = ? ORDER BY observed_at, snapshot_id`,
        )
        .all(merchantId) as Omit<Snapshot, 'at'>[]
    ).map((s) => ({ ...s, at: Date.parse(s.observedAt) }));
    if (snapshots.length < 2) return { findings: [], coverage: tally.result(CODE, merchantId) };
    const { flows, uncertain, quiet } = readFlows(db, merchantId);
    flows.sort((a, b) => a.at - b.at);
    uncertain.sort((a, b) => a - b);
    quiet.sort((a, b) => a - b);
    const flowTimes = flows.map((f) => f.at);
    const findings: Finding[] = [];
    for (let i = 1; i < snapshots.length; i++) {
      const before = snapshots[i - 1] as Snapshot;
      const after = snapshots[i] as Snapshot;
      const q = settings.quietMs;
      // A finding on this interval cannot resolve while it is skipped.
      const skip = (reason: string) =>
        tally.skip('intervals', reason).leaveOpen('snapshotAt', [after.observedAt]);
      if (before.balanceMinor === null || after.balanceMinor === null) {
        skip('a snapshot balance too precise for its currency');
        continue;
      }
      if (through !== null && after.at > through) {
        skip(AFTER_SYNCED_REASON);
        continue;
      }
      if (start !== null && before.at < start) {
        skip(BEFORE_SYNCED_REASON);
        continue;
      }
      if (before.currency !== after.currency) {
        skip('the merchant currency changed between the snapshots');
        continue;
      }
      if (
        anyBetween(quiet, before.at - q, before.at + q) ||
        anyBetween(quiet, after.at - q, after.at + q)
      ) {
        skip(`a journal order within ${q / 1000} s of a snapshot`);
        continue;
      }
      // Flows between the snapshots: before.at < at <= after.at (whole milliseconds).
      if (anyBetween(uncertain, before.at + 1, after.at)) {
        skip('an order between the snapshots with no orderNo or no amount');
        continue;
      }
      const inside = flows.slice(
        firstAtOrAfter(flowTimes, before.at + 1),
        firstAtOrAfter(flowTimes, after.at + 1),
      );
      const amounts = inside.map((f) => f.amount());
      if (amounts.some((a) => a === null)) {
        skip("a cancelled card's balance before its CANCEL is unknown");
        continue;
      }
      // In bigints: the flows of a long interval may sum past 2^53 minor units.
      const explained = (amounts as bigint[]).reduce((sum, a) => sum + a, 0n);
      const expected = BigInt(before.balanceMinor) + explained;
      const delta = BigInt(after.balanceMinor) - expected;
      const tolerance = BigInt(settings.tolerances[CODE]);
      const mismatch = (delta < 0n ? -delta : delta) > tolerance;
      // A cancellation returns the card's balance at that moment, and a CANCELLED card keeps 0
      // whatever posts or changes later (reference-model sections 3 and 4): a PENDING
      // purchase declined, or a PENDING refund completed, after it moves the ledger, not the
      // merchant balance.
      const terms = mismatch ? inside.flatMap((f) => f.terms?.() ?? []) : [];
      if (
        terms.length > 0 &&
        explainedBySubset(BigInt(after.balanceMinor), expected, terms, tolerance)
      ) {
        tally.skip('intervals', CANCELLED_CARD_REASON);
        continue;
      }
      if (mismatch && !verified()) {
        skip(UNVERIFIED_REASON);
        continue;
      }
      tally.examine('intervals').examine('orders', new Set(inside.map((f) => f.order)).size);
      if (!mismatch) continue;
      const money = (minor: number | bigint) => moneyText(minor, after.currency) ?? String(minor);
      findings.push(
        makeFinding(CODE, merchantId, {
          snapshotAt: after.observedAt,
          currency: after.currency,
          expected: moneyText(expected, after.currency),
          actual: moneyText(after.balanceMinor, after.currency),
          delta: moneyText(delta, after.currency),
          detail: `balance went from ${money(before.balanceMinor)} (${before.observedAt}) to ${money(after.balanceMinor)} (${after.observedAt}); the journal explains ${money(explained)} over ${inside.length} flows`,
        }),
      );
    }
    return tally.outcome(CODE, merchantId, findings);
  },
};

/** The journal's flows, the instants of orders that cannot be valued, and every order instant. */
function readFlows(
  db: SqliteDatabase,
  merchantId: string,
): { flows: Flow[]; uncertain: number[]; quiet: number[] } {
  const flows: Flow[] = [];
  const uncertain: number[] = [];
  const quiet: number[] = [];
  const topUps = db
    .prepare(
      `SELECT merchant_order_no AS merchantOrderNo, amount_minor AS amountMinor,
              submitted_at AS submittedAt
       FROM orders WHERE merchant_id = ? AND kind = 'TOPUP' AND state <> 'REJECTED'`,
    )
    .all(merchantId) as {
    merchantOrderNo: string;
    amountMinor: number | null;
    submittedAt: string;
  }[];
  for (const topUp of topUps) {
    const at = Date.parse(topUp.submittedAt);
    quiet.push(at);
    if (topUp.amountMinor === null) uncertain.push(at);
    else flows.push({ at, amount: constant(topUp.amountMinor), order: topUp.merchantOrderNo });
  }
  const rows = db
    .prepare(
      `WITH ${JOURNAL_CTE}
       SELECT merchant_order_no AS merchantOrderNo, kind, order_no AS orderNo, card_id AS cardId, amount_minor AS amountMinor,
              submitted_at AS submittedAt, state, unlinkable, succeeded,
              fee_card_id AS feeCardId, fee_created_at AS feeCreatedAt
       FROM journal`,
    )
    .iterate({ merchantId }) as IterableIterator<JournalRow>;
  const cardBalance = cancelledCardBalance(db, merchantId);
  const cardTerms = cancelledCardTerms(db, merchantId);
  for (const row of rows) {
    // A REJECTED order was refused: the order desk journals it so only on an answer proving the
    // upstream did not take it, and section 3 moves money from acceptance on. Near a snapshot
    // it cannot have moved the balance to either side of the read, so it quiets nothing (as a
    // REJECTED TOPUP above).
    if (row.state === 'REJECTED') continue;
    const submitted = Date.parse(row.submittedAt);
    const outcome = row.feeCreatedAt === null ? null : Date.parse(row.feeCreatedAt);
    quiet.push(submitted);
    if (outcome !== null) quiet.push(outcome);
    if (row.kind === 'FREEZE' || row.kind === 'UNFREEZE') continue;
    if (row.unlinkable !== null) {
      uncertain.push(submitted);
      continue;
    }
    const amount = row.amountMinor;
    const order = row.merchantOrderNo;
    if (row.kind === 'ISSUE' || row.kind === 'DEPOSIT') {
      if (amount === null) uncertain.push(submitted);
      else flows.push({ at: submitted, amount: constant(-amount), order });
      if (outcome !== null && row.succeeded === 0) {
        if (amount === null) uncertain.push(outcome);
        else flows.push({ at: outcome, amount: constant(amount), order });
      }
    } else if (row.kind === 'WITHDRAW' && outcome !== null && row.succeeded === 1) {
      if (amount === null) uncertain.push(outcome);
      else flows.push({ at: outcome, amount: constant(amount), order });
    } else if (row.kind === 'CANCEL' && outcome !== null && row.succeeded === 1) {
      const cardId = row.feeCardId ?? row.cardId;
      const feeAt = row.feeCreatedAt as string;
      flows.push({
        at: outcome,
        amount: () => (cardId === null ? null : cardBalance(cardId, feeAt)),
        order,
        terms: () => (cardId === null ? [] : cardTerms(cardId, feeAt)),
      });
    }
  }
  return { flows, uncertain, quiet };
}

/** The index of the first of the sorted `times` at or after `at`. */
function firstAtOrAfter(times: readonly number[], at: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((times[middle] as number) < at) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** True when one of the sorted `times` lies in `[from, to]`. */
function anyBetween(times: readonly number[], from: number, to: number): boolean {
  const index = firstAtOrAfter(times, from);
  return index < times.length && (times[index] as number) <= to;
}

function constant(amount: number): () => bigint {
  const exact = BigInt(amount);
  return () => exact;
}

/**
 * The ledger balance of a card just before `at` (its CANCEL's outcome): its ISSUE and DEPOSIT
 * amounts less its WITHDRAW amounts whose outcome before `at` is not DECLINED, plus the
 * effect of its transactions created before `at`. Null when the card has no linked ISSUE order,
 * a journal DEPOSIT or WITHDRAW with no `orderNo` (the ledger holds for a card whose orders are
 * all known, as CARD_BALANCE_MISMATCH has it), a transaction in quarantine, or an amount it
 * needs is unusable.
 */
function cancelledCardBalance(
  db: SqliteDatabase,
  merchantId: string,
): (cardId: string, at: string) => bigint | null {
  // Sums in bigints, read as bigints: past 2^53 minor units a number drops cents unseen, and
  // past 2^63 SQLite's sum() fails the statement (so it is taken in parts: exact-sum-sql.ts).
  const orders = db
    .prepare(
      `SELECT o.kind, o.amount_minor AS amountMinor, f.status, f.created_at AS createdAt
     FROM (
       SELECT f.*, row_number() OVER (PARTITION BY f.trade_no ORDER BY f.created_at, f.transaction_id) AS rank
       FROM transactions f
       WHERE f.card_id = @cardId AND f.merchant_id = @merchantId AND f.type = 'FEE'
     ) f
     JOIN orders o ON o.merchant_id = @merchantId AND o.order_no = f.trade_no
     WHERE f.rank = 1 AND o.state <> 'REJECTED'`,
    )
    .safeIntegers(true);
  // An order whose outcome cannot be linked (did its amount reach the card?), or a transaction
  // the mirror lacks (quarantined): the ledger cannot be summed.
  const unknownParts = db.prepare(
    `WITH ${QUARANTINED_CTE}
     SELECT 1 FROM orders
     WHERE merchant_id = @merchantId AND card_id = @cardId AND kind IN ('DEPOSIT', 'WITHDRAW')
       AND nullif(order_no, '') IS NULL AND state <> 'REJECTED'
     UNION ALL
     SELECT 1 FROM quarantined_transactions WHERE card_id = @cardId
     LIMIT 1`,
  );
  const transactions = db
    .prepare(
      `SELECT ${exactSumSql('effect', 'total')}, sum(effect IS NULL) AS unusable FROM (
       SELECT ${transactionEffectSql('t')} AS effect FROM transactions t
       WHERE t.card_id = @cardId AND t.merchant_id = @merchantId AND t.created_at < @at)`,
    )
    .safeIntegers(true);
  return (cardId, at) => {
    const linked = orders.all({ cardId, merchantId }) as {
      kind: string;
      amountMinor: bigint | null;
      status: string;
      createdAt: string;
    }[];
    if (!linked.some((o) => o.kind === 'ISSUE')) return null;
    if (unknownParts.get({ cardId, merchantId }) !== undefined) return null;
    let total = 0n;
    for (const order of linked) {
      const sign =
        order.kind === 'WITHDRAW'
          ? -1n
          : order.kind === 'ISSUE' || order.kind === 'DEPOSIT'
            ? 1n
            : 0n;
      // As the journal's `succeeded`: any outcome but DECLINED moved the amount (a PENDING FEE
      // record too, which the card's transactions already charge).
      const done = order.status !== 'DECLINED';
      if (sign === 0n || !done || order.createdAt >= at) continue;
      if (order.amountMinor === null) return null;
      total += sign * order.amountMinor;
    }
    const moved = transactions.get({ cardId, merchantId, at }) as {
      total_high: bigint | null;
      total_low: bigint | null;
      unusable: bigint | null;
    };
    if ((moved.unusable ?? 0n) > 0n) return null;
    return total + (exactSum(moved.total_high, moved.total_low) ?? 0n);
  };
}

/**
 * The transactions of a cancelled card a sync saw only after its CANCEL's outcome at `at`, each
 * as what the ledger {@link cancelledCardBalance} counts less what the balance returned at `at`
 * may have held: one created before `at` but first mirrored after it may not have posted yet
 * (its whole effect; or, first mirrored in another status than PENDING, its effect less its
 * PENDING's); one whose status change was first mirrored after `at` may have changed after it
 * (its effect less its effect before the change). The FEE records of orders are left out: the
 * ledger takes them with their order, at their own `createdAt`.
 */
const CANCELLED_CARD_TERMS = `
WITH card_transactions AS (
  SELECT t.* FROM transactions t
  WHERE t.card_id = @cardId AND t.merchant_id = @merchantId AND t.created_at < @at
    AND NOT (t.type = 'FEE' AND EXISTS (
      SELECT 1 FROM orders o WHERE o.merchant_id = @merchantId AND o.order_no = t.trade_no))
)
SELECT t.transaction_id AS id, ${transactionEffectSql('t')} AS effect, t.created_at AS moved
FROM card_transactions t WHERE t.first_seen_at > @at
UNION ALL
SELECT t.transaction_id AS id, ${transactionEffectSql('t')} - ${transactionEffectSql('p')} AS effect,
       t.first_seen_at AS moved
FROM card_transactions t
JOIN (SELECT transaction_id, type, amount_minor, fee_minor, 'PENDING' AS status
      FROM card_transactions) p ON p.transaction_id = t.transaction_id
WHERE t.first_seen_at > @at AND t.status <> 'PENDING'
UNION ALL
SELECT t.transaction_id AS id, ${transactionEffectSql('t')} - ${transactionEffectSql('p')} AS effect,
       p.first_change AS moved
FROM (
  SELECT t.transaction_id, t.type, t.amount_minor, t.fee_minor, s.from_status AS status,
         min(s.observed_at) AS first_change
  FROM card_transactions t
  JOIN transaction_status_changes s ON s.transaction_id = t.transaction_id
  WHERE t.first_seen_at <= @at AND s.observed_at > @at
  GROUP BY t.transaction_id
) p
JOIN card_transactions t ON t.transaction_id = p.transaction_id`;

/**
 * The terms ({@link CANCELLED_CARD_TERMS}) by which the balance a card's CANCEL returned at `at`
 * may fall short of its ledger then, as the mirror now holds it.
 */
function cancelledCardTerms(
  db: SqliteDatabase,
  merchantId: string,
): (cardId: string, at: string) => ExplainingTerm[] {
  const statement = db.prepare(CANCELLED_CARD_TERMS).safeIntegers(true);
  return (cardId, at) => {
    const cancelled = Date.parse(at);
    return (
      statement.all({ cardId, merchantId, at }) as {
        id: string;
        effect: bigint | null;
        moved: string;
      }[]
    )
      .filter((t): t is { id: string; effect: bigint; moved: string } => !!t.effect)
      .map((t) => ({
        id: t.id,
        effect: t.effect,
        distance: Math.abs(Date.parse(t.moved) - cancelled),
      }));
  };
}
