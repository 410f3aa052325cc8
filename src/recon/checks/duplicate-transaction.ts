import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { amountText } from '../money-text.js';
import { reasonCounts } from '../reason-counts.js';
import { statusesVerified } from '../statuses-verified.js';
import { TRADES_TABLE } from '../working-tables.js';

const CODE = 'DUPLICATE_TRANSACTION';

/**
 * Why a repeat is not judged after a sync whose count audit did not finish: the audit is what
 * catches a status change of a row older than the lookback, so a PENDING member of the group may
 * have been declined upstream (a purchase made again after its hold was declined).
 */
const UNVERIFIED_REASON =
  "the last sync's count audit did not finish: a PENDING member of the group may have been declined";

const CANDIDATES = `candidates AS (
  SELECT transaction_id,
         CASE WHEN amount_minor IS NULL THEN 'amount too precise for its currency (PRECISION_VIOLATION)' END AS reason
  FROM transactions NOT INDEXED WHERE merchant_id = @merchantId AND status <> 'DECLINED'
)`;

/**
 * DUPLICATE_TRANSACTION: in a group of two or more non-DECLINED transactions with the same card,
 * type, `tradeNo` and amount (minor units of one currency), every member but the first (earliest
 * `createdAt`, then smallest id) is a finding of its own. Only the trades with such a repeat (the
 * working table `trades`, `repeats` > 0) are read again and ordered: the transactions of each
 * card with one, read once per card (no index holds `trade_no`, so a trade's own rows cannot be
 * looked up; read once per trade, a card of 80,000 transactions with 8,000 repeats took minutes).
 * After a sync whose count audit did not finish, a group with a PENDING member is left
 * undecided: that member may have been declined upstream.
 */
export const duplicateTransaction: Check = {
  code: CODE,
  severity: 'error',
  description: 'two or more non-declined transactions with the same card, type, tradeNo and amount',
  uses: ['trades'],
  run({ db, merchantId }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH repeating_cards AS MATERIALIZED (
           SELECT DISTINCT card_id FROM ${TRADES_TABLE} WHERE repeats > 0
         )
         SELECT transactionId, cardId, tradeNo, type, amount, amountMinor, currency, firstId, pending
         FROM (
           SELECT t.transaction_id AS transactionId, t.card_id AS cardId, t.trade_no AS tradeNo,
                  t.type, t.amount, t.amount_minor AS amountMinor, t.currency,
                  row_number() OVER same AS member, first_value(t.transaction_id) OVER same AS firstId,
                  max(t.status = 'PENDING') OVER (PARTITION BY t.card_id, t.type, t.trade_no,
                                                  t.currency, t.amount_minor) AS pending
           FROM transactions t
           WHERE t.rowid IN (
               SELECT u.rowid FROM repeating_cards x CROSS JOIN transactions u
               WHERE u.card_id = x.card_id)
             AND (t.card_id, t.trade_no) IN (
               SELECT card_id, trade_no FROM ${TRADES_TABLE} WHERE repeats > 0)
             AND t.merchant_id = @merchantId AND t.status <> 'DECLINED'
             AND t.amount_minor IS NOT NULL
           WINDOW same AS (PARTITION BY t.card_id, t.type, t.trade_no, t.currency, t.amount_minor
                           ORDER BY t.created_at, t.transaction_id)
         )
         WHERE member > 1 ORDER BY transactionId`,
      )
      .all(params) as {
      transactionId: string;
      cardId: string;
      tradeNo: string;
      type: string;
      amount: string;
      amountMinor: number;
      currency: string;
      firstId: string;
      pending: number;
    }[];
    // A group with a PENDING member is left undecided while statuses are unverified.
    const undecided = rows.some((t) => t.pending) && !statusesVerified(db, merchantId);
    const skipped = undecided ? rows.filter((t) => t.pending) : [];
    const findings = (undecided ? rows.filter((t) => !t.pending) : rows).map((t) => {
      const amount = amountText(t.amountMinor, t.amount, t.currency);
      return makeFinding(CODE, merchantId, {
        transactionId: t.transactionId,
        cardId: t.cardId,
        tradeNo: t.tradeNo,
        currency: t.currency,
        actual: amount,
        detail: `${t.type} of ${amount} ${t.currency} on trade ${t.tradeNo} repeats ${t.firstId}`,
      });
    });
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'transaction_id' }).map((c) =>
      c.reason === null ? { ...c, n: c.n - skipped.length } : c,
    );
    return new CoverageTally()
      .addGrouped('transactions', counts, 'transactionId')
      .skip('transactions', UNVERIFIED_REASON, skipped.length)
      .leaveOpen(
        'transactionId',
        skipped.map((t) => t.transactionId),
      )
      .outcome(CODE, merchantId, findings);
  },
};
