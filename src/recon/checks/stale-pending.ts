import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { amountText } from '../money-text.js';
import { statusesVerified } from '../statuses-verified.js';

const CODE = 'STALE_PENDING';
const DAY = 86_400_000;

/** STALE_PENDING: a PENDING transaction created more than `staleAfter` before the cutoff. */
export const stalePending: Check = {
  code: CODE,
  severity: 'warning',
  description: 'a PENDING transaction created more than staleAfter (7 days) before the cutoff',
  run({ db, merchantId, range, settings }: CheckContext) {
    const tally = new CoverageTally();
    const pending = (
      db
        .prepare(
          "SELECT count(*) AS n FROM transactions WHERE merchant_id = ? AND status = 'PENDING'",
        )
        .get(merchantId) as { n: number }
    ).n;
    const undecided = (reason: string) => {
      tally.examine('transactions', 0).skip('transactions', reason, pending).leaveAllOpen();
      return tally.outcome(CODE, merchantId, []);
    };
    if (range.cutoff === null) return undecided('no synced range: cutoff unknown');
    // A PENDING row may have completed upstream since it was read, while the cutoff moved on.
    if (!statusesVerified(db, merchantId))
      return undecided(
        "the last sync's count audit did not finish: a PENDING status may be out of date",
      );
    tally.examine('transactions', pending);
    // cutoff - createdAt > staleAfter, with instants compared as ISO text.
    const line = new Date(Date.parse(range.cutoff) - settings.staleAfterMs).toISOString();
    const rows = db
      .prepare(
        `SELECT transaction_id AS transactionId, card_id AS cardId, trade_no AS tradeNo, type,
                amount, amount_minor AS amountMinor, currency, created_at AS createdAt
         FROM transactions
         WHERE merchant_id = ? AND status = 'PENDING' AND created_at < ?
         ORDER BY transaction_id`,
      )
      .all(merchantId, line) as {
      transactionId: string;
      cardId: string;
      tradeNo: string;
      type: string;
      amount: string;
      amountMinor: number | null;
      currency: string;
      createdAt: string;
    }[];
    const findings = rows.map((t) => {
      const days = Math.floor((Date.parse(range.cutoff as string) - Date.parse(t.createdAt)) / DAY);
      return makeFinding(CODE, merchantId, {
        transactionId: t.transactionId,
        cardId: t.cardId,
        tradeNo: t.tradeNo,
        currency: t.currency,
        actual: amountText(t.amountMinor, t.amount, t.currency),
        detail: `${t.type} PENDING since ${t.createdAt} (${days} days before the cutoff ${range.cutoff})`,
      });
    });
    return { findings, coverage: tally.result(CODE, merchantId) };
  },
};
