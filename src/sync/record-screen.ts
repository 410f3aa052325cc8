import { redactCardNumbers } from '../contract/card-secrets.js';
import type { Card, MerchantBalance, Offering, Transaction } from '../contract/index.js';
import type { QuarantinedRecord } from '../mirror/quarantine-writer.js';
import { currencyExponent, isKnownCurrency } from '../money/currency.js';
import { toMinor } from '../money/decimal.js';

/**
 * Why an amount that passed the wire contract still cannot be kept: more minor units than
 * exact integer arithmetic holds. (Too many fractional digits is kept, and reported by the
 * reconciliation as PRECISION_VIOLATION.)
 */
function amountProblem(field: string, text: string, currency: string): string | null {
  if (!isKnownCurrency(currency)) return null;
  const parsed = toMinor(text, currencyExponent(currency), { signed: true });
  return !parsed.ok && parsed.reason === 'too-large'
    ? `${field} ${text} ${currency} is too large to hold exactly`
    : null;
}

/**
 * `row` with any card number in its merchant name replaced: a valid record is mirrored as sent,
 * and the name is free text, where a processor's descriptor may carry the card's full number.
 */
function withoutCardNumber(row: Transaction): Transaction {
  const merchantName = redactCardNumbers(row.merchantName);
  return merchantName === row.merchantName ? row : { ...row, merchantName };
}

/**
 * Split transactions into those to keep (without a card number in their free text) and those
 * to quarantine, with the reason.
 */
export function screenTransactions(rows: Iterable<Transaction>): {
  kept: Transaction[];
  refused: QuarantinedRecord[];
} {
  const kept: Transaction[] = [];
  const refused: QuarantinedRecord[] = [];
  for (const row of rows) {
    const reason =
      amountProblem('amount', row.amount, row.currency) ??
      amountProblem('fee', row.fee, row.currency);
    if (reason === null) kept.push(withoutCardNumber(row));
    else refused.push({ resource: 'transactions', recordId: row.transactionId, reason, raw: row });
  }
  return { kept, refused };
}

/** Split cards into those to keep and those to quarantine, with the reason. */
export function screenCards(cards: Iterable<Card>): { kept: Card[]; refused: QuarantinedRecord[] } {
  const kept: Card[] = [];
  const refused: QuarantinedRecord[] = [];
  for (const card of cards) {
    const reason = amountProblem('balance', card.balance, card.currency);
    if (reason === null) kept.push(card);
    else refused.push({ resource: 'cards', recordId: card.cardId, reason, raw: card });
  }
  return { kept, refused };
}

/** Split offerings into those to keep and those to quarantine, with the reason. */
export function screenOfferings(offerings: Iterable<Offering>): {
  kept: Offering[];
  refused: QuarantinedRecord[];
} {
  const kept: Offering[] = [];
  const refused: QuarantinedRecord[] = [];
  for (const offering of offerings) {
    const reason =
      amountProblem('minLoadAmount', offering.minLoadAmount, offering.currency) ??
      amountProblem('maxLoadAmount', offering.maxLoadAmount, offering.currency) ??
      amountProblem('issuanceFee', offering.issuanceFee, offering.currency);
    if (reason === null) kept.push(offering);
    else refused.push({ resource: 'offerings', recordId: offering.id, reason, raw: offering });
  }
  return { kept, refused };
}

/** Why a merchant balance cannot be kept, or null when it can. */
export function balanceProblem(balance: MerchantBalance): string | null {
  return amountProblem('balance', balance.balance, balance.currency);
}
