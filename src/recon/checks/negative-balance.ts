import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { amountText } from '../money-text.js';
import { reasonCounts } from '../reason-counts.js';

const CODE = 'NEGATIVE_BALANCE';

const CANDIDATES = `candidates AS (
  SELECT card_id, balance, balance_minor, currency, status,
         CASE WHEN balance_minor IS NULL THEN 'balance too precise for its currency (PRECISION_VIOLATION)' END AS reason
  FROM cards WHERE merchant_id = @merchantId
)`;

/** NEGATIVE_BALANCE: a card whose reported balance is below zero. */
export const negativeBalance: Check = {
  code: CODE,
  severity: 'error',
  description: 'a card balance below zero',
  run({ db, merchantId }: CheckContext) {
    const params = { merchantId };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT card_id AS cardId, balance, balance_minor AS balanceMinor, currency, status FROM candidates
         WHERE reason IS NULL AND balance_minor < 0 ORDER BY card_id`,
      )
      .all(params) as {
      cardId: string;
      balance: string;
      balanceMinor: number;
      currency: string;
      status: string;
    }[];
    const findings = rows.map((c) => {
      const balance = amountText(c.balanceMinor, c.balance, c.currency);
      return makeFinding(CODE, merchantId, {
        cardId: c.cardId,
        currency: c.currency,
        actual: balance,
        detail: `${c.status} card with balance ${balance} ${c.currency}`,
      });
    });
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'card_id' });
    return new CoverageTally()
      .addGrouped('cards', counts, 'cardId')
      .outcome(CODE, merchantId, findings);
  },
};
