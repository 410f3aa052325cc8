import { utcInstant } from '../contract/utc-instant.js';
import type { OrderKind } from '../mirror/mirror-schema.js';
import { currencyExponent, isKnownCurrency } from '../money/currency.js';
import type { ImportIssue, JournalColumn } from './import-issue.js';
import { quoted } from './import-issue.js';
import type { JournalCsvRow } from './journal-csv.js';
import { CARDLESS_KINDS, JOURNAL_KINDS, type JournalEntry, MONEY_KINDS } from './journal-entry.js';
import { isMerchantOrderNo } from './merchant-order-no.js';
import { checkOrderAmount } from './order-amount.js';

/** One row checked on its own: the entry when valid, and what was wrong or worth flagging. */
export interface CheckedRow {
  readonly entry: JournalEntry | undefined;
  readonly issues: readonly ImportIssue[];
  readonly warnings: readonly ImportIssue[];
}

/** An opaque id as the interface has them: 1-128 characters, no control or edge spaces. */
function isIdentifier(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are the point
  return text.length <= 128 && text.trim() === text && !/[\u0000-\u001f\u007f]/.test(text);
}

/**
 * Check one data row against the rules of reference-model section 5 for its kind: `cardId`
 * empty exactly for ISSUE and TOPUP, `offeringId` for ISSUE only (and required there),
 * `amount` a positive decimal for money kinds and empty for FREEZE/UNFREEZE/CANCEL, a known
 * currency for money kinds, an ISO 8601 `submittedAt` with a zone, no `orderNo` on a TOPUP
 * (not an API order). Every fault of the row is reported, not only the first. An amount more
 * precise than its currency is kept with a warning (see docs/journal.md).
 */
export function checkJournalRow(row: JournalCsvRow): CheckedRow {
  const { line, values } = row;
  const issues: ImportIssue[] = [];
  const warnings: ImportIssue[] = [];
  const merchantOrderNo = values.merchantOrderNo;
  const fault = (field: JournalColumn, reason: string) =>
    issues.push({
      line,
      code: 'INVALID_FIELD',
      field,
      ...(merchantOrderNo === '' ? {} : { merchantOrderNo }),
      reason: `${field}: ${reason}`,
    });

  if (!isMerchantOrderNo(merchantOrderNo))
    fault(
      'merchantOrderNo',
      `expected 1-64 printable ASCII characters without spaces, got ${quoted(merchantOrderNo)}`,
    );

  // With an unknown kind, the rules that do not depend on it are still checked, so that every
  // fault of the row is reported at once.
  const kind = JOURNAL_KINDS.find((k) => k === values.kind);
  if (!kind)
    fault('kind', `expected one of ${JOURNAL_KINDS.join(', ')}, got ${quoted(values.kind)}`);

  const cardId = optionalId(values.cardId);
  if (kind && CARDLESS_KINDS.has(kind)) {
    if (cardId !== null)
      fault('cardId', `expected empty for ${kind}, got ${quoted(values.cardId)}`);
  } else if (kind && cardId === null)
    fault('cardId', `expected the card's id for ${kind}, got none`);
  else if (cardId !== null && !isIdentifier(cardId))
    fault('cardId', `expected an id of 1-128 characters, got ${quoted(cardId)}`);

  const offeringId = optionalId(values.offeringId);
  if (kind === 'ISSUE' && offeringId === null)
    fault('offeringId', 'expected the offering issued from, got none');
  else if (kind && kind !== 'ISSUE' && offeringId !== null)
    fault('offeringId', `expected empty for ${kind} (ISSUE only), got ${quoted(offeringId)}`);
  else if (offeringId !== null && !isIdentifier(offeringId))
    fault('offeringId', `expected an id of 1-128 characters, got ${quoted(offeringId)}`);

  const currency = optionalId(values.currency);
  if (kind && MONEY_KINDS.has(kind) && currency === null)
    fault('currency', `expected the ISO 4217 code of the amount for ${kind}, got none`);
  else if (currency !== null && !isKnownCurrency(currency))
    fault(
      'currency',
      `expected an ISO 4217 code cardsync knows (USD, JPY, BHD, ...), got ${quoted(currency)}`,
    );

  const amountText = optionalId(values.amount);
  let amountMinor: number | null = null;
  if (kind && !MONEY_KINDS.has(kind)) {
    if (amountText !== null)
      fault('amount', `expected empty for ${kind}, got ${quoted(amountText)}`);
  } else if (kind && amountText === null)
    fault('amount', `expected the amount of the ${kind}, got none`);
  else if (amountText !== null) {
    const checked = checkOrderAmount(amountText, currency);
    if (!checked.ok) fault('amount', checked.reason);
    else {
      amountMinor = checked.minor;
      if (checked.tooPrecise && currency !== null)
        warnings.push({
          line,
          code: 'AMOUNT_TOO_PRECISE',
          field: 'amount',
          merchantOrderNo,
          reason: `amount: ${amountText} has more decimals than ${currency} allows (${currencyExponent(currency)}); kept as text, amount_minor left NULL`,
        });
    }
  }

  const submittedAt = utcInstant(values.submittedAt);
  if (submittedAt === undefined)
    fault(
      'submittedAt',
      `expected an ISO 8601 date-time with a zone (2026-11-21T02:00:00.000Z), got ${quoted(values.submittedAt)}`,
    );

  const orderNo = optionalId(values.orderNo);
  if (orderNo !== null) {
    if (kind === 'TOPUP')
      fault('orderNo', `expected empty for TOPUP (not an API order), got ${quoted(orderNo)}`);
    else if (!isIdentifier(orderNo))
      fault('orderNo', `expected an id of 1-128 characters, got ${quoted(orderNo)}`);
  }

  if (issues.length > 0 || !kind || submittedAt === undefined)
    return { entry: undefined, issues, warnings };
  return {
    entry: {
      merchantOrderNo,
      kind: kind as OrderKind,
      cardId,
      offeringId,
      amount: amountText,
      amountMinor,
      currency,
      submittedAt,
      orderNo,
    },
    issues,
    warnings,
  };
}

function optionalId(text: string): string | null {
  return text === '' ? null : text;
}
