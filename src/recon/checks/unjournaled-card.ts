import type { Check, CheckContext } from '../check.js';
import { CoverageTally } from '../check-coverage.js';
import { makeFinding } from '../finding.js';
import { JOURNAL_CTE } from '../journal-sql.js';
import { reasonCounts } from '../reason-counts.js';

const CODE = 'UNJOURNALED_CARD';

const ISSUING_REASON =
  'issuance not complete while a journal ISSUE awaits its outcome (its FEE record links the card)';

const UNSYNCED_REASON =
  'read after the last fully synced transaction while a journal ISSUE awaits its outcome (its FEE record, which links the card, may not be mirrored yet)';

const CANDIDATES = `${JOURNAL_CTE},
issued AS (
  SELECT DISTINCT fee_card_id AS card_id FROM journal
  WHERE kind = 'ISSUE' AND unlinkable IS NULL AND fee_card_id IS NOT NULL
),
-- A card is linked to its ISSUE by the FEE record of the ISSUE's outcome, so a PENDING card
-- cannot be linked yet: while an ISSUE of the books awaits its outcome, it may be that one.
issuing AS (
  SELECT 1 FROM journal WHERE kind = 'ISSUE' AND fee_id IS NULL AND state <> 'REJECTED' LIMIT 1
),
candidates AS (
  SELECT c.card_id, c.status, c.currency, c.created_at,
         CASE WHEN @start IS NOT NULL AND c.created_at < @start
              THEN 'issued before the synced range: its ISSUE outcome is not mirrored'
              WHEN c.status = 'PENDING' AND EXISTS (SELECT 1 FROM issuing)
              THEN '${ISSUING_REASON}'
              -- A sync that failed part-way may have read an issued card, not its FEE record.
              WHEN @through IS NOT NULL AND c.observed_at > @through AND EXISTS (SELECT 1 FROM issuing)
              THEN '${UNSYNCED_REASON}' END AS reason,
         c.card_id NOT IN (SELECT card_id FROM issued) AS unjournaled
  FROM cards c WHERE c.merchant_id = @merchantId
)`;

/**
 * UNJOURNALED_CARD: a card with no linked ISSUE order in the journal (no journal ISSUE whose
 * FEE record names the card), so its balance cannot be checked. A PENDING card is left
 * undecided while an ISSUE of the journal awaits its outcome: it may be that ISSUE's card. So is
 * any card read after `through` (a sync that failed part-way) while one does: the FEE record of
 * its outcome may lie beyond what the transactions were read up to.
 */
export const unjournaledCard: Check = {
  code: CODE,
  severity: 'info',
  description: 'a card with no linked ISSUE order in the journal: its balance cannot be checked',
  uses: ['journal'],
  run({ db, merchantId, range }: CheckContext) {
    const params = { merchantId, start: range.start, through: range.through };
    const rows = db
      .prepare(
        `WITH ${CANDIDATES}
         SELECT card_id AS cardId, status, currency, created_at AS createdAt FROM candidates
         WHERE reason IS NULL AND unjournaled ORDER BY card_id`,
      )
      .all(params) as { cardId: string; status: string; currency: string; createdAt: string }[];
    const findings = rows.map((c) =>
      makeFinding(CODE, merchantId, {
        cardId: c.cardId,
        currency: c.currency,
        detail: `${c.status} card created ${c.createdAt} has no linked ISSUE order in the journal`,
      }),
    );
    const counts = reasonCounts(db, CANDIDATES, params, { subject: 'card_id' });
    return new CoverageTally()
      .addGrouped('cards', counts, 'cardId')
      .outcome(CODE, merchantId, findings);
  },
};
