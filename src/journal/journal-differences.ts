import type { JournalEntry } from './journal-entry.js';
import { sameAmount } from './order-amount.js';
import type { JournaledOrder } from './order-journal.js';

/**
 * How a journal file's row differs from the row already journaled under its merchantOrderNo,
 * one `field: journaled X, file Y` per difference; empty when it says the same.
 *
 * Against a row imported earlier every field counts, bar an `orderNo` it was imported without:
 * the books may learn it later (an order exported while its request was on the wire), and the
 * import then fills it in. Against an order cardsync itself submitted, the time is cardsync's
 * own (when the request left), so `submittedAt` is not compared, and an `orderNo` is compared
 * only when both know one. An ISSUE's `cardId` is never compared: the file has none, and the
 * reconciliation may link the row to its card.
 */
export function journalDifferences(
  journaled: JournaledOrder,
  entry: JournalEntry,
  merchantId: string,
): string[] {
  const fromCli = journaled.source === 'cli';
  const differences: string[] = [];
  const compare = (field: string, was: string | null, is: string | null, same = was === is) => {
    if (!same) differences.push(`${field}: journaled ${show(was)}, file ${show(is)}`);
  };
  compare('merchant', journaled.merchant_id, merchantId);
  compare('kind', journaled.kind, entry.kind);
  if (entry.kind !== 'ISSUE') compare('cardId', journaled.card_id, entry.cardId);
  compare('offeringId', journaled.offering_id, entry.offeringId);
  compare('amount', journaled.amount, entry.amount, sameAmount(journaled.amount, entry.amount));
  const hasAmount = entry.amount !== null || journaled.amount !== null;
  if (!fromCli || (hasAmount && journaled.currency !== null))
    compare('currency', journaled.currency, entry.currency);
  if (!fromCli) compare('submittedAt', journaled.submitted_at, entry.submittedAt);
  if (journaled.order_no !== null && (!fromCli || entry.orderNo !== null))
    compare('orderNo', journaled.order_no, entry.orderNo);
  if (fromCli && journaled.state === 'REJECTED' && entry.orderNo !== null)
    differences.push(
      `state: journaled REJECTED (${journaled.error_code ?? 'no code'}) by cardsync, the file gives orderNo ${entry.orderNo}`,
    );
  return differences;
}

function show(value: string | null): string {
  return value === null ? '(empty)' : value;
}
