import { currencyExponent } from '../../money/currency.js';
import { formatMinor } from '../../money/decimal.js';
import type { GeneratedOrder } from './card-life.js';
import type { JournalRow } from './journal-file.js';

/** The journal row the merchant's books hold for an order it placed. */
export function journalRow(order: GeneratedOrder, currency: string): JournalRow {
  return {
    merchantOrderNo: order.merchantOrderNo,
    kind: order.kind,
    cardId: order.kind === 'ISSUE' ? '' : order.cardId,
    offeringId: order.offeringId ?? '',
    amount:
      order.amountMinor === null ? '' : formatMinor(order.amountMinor, currencyExponent(currency)),
    currency,
    submittedAt: new Date(order.acceptedAt).toISOString(),
    orderNo: order.orderNo,
  };
}
