import type { Card, Offering, Pagination, Transaction } from '../../contract/index.js';
import { currencyExponent } from '../../money/currency.js';
import { formatMinor, type Minor } from '../../money/decimal.js';
import type { CardRecord, OfferingRecord, TransactionRecord } from '../store/records.js';
import { ApiError } from './api-error.js';

/** Minor units as the wire's decimal text, with exactly the currency's exponent digits. */
export function money(minor: Minor, currency: string): string {
  return formatMinor(minor, currencyExponent(currency));
}

/** Epoch milliseconds as ISO 8601 UTC with milliseconds. */
export function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** A card as CardResponse. */
export function presentCard(card: CardRecord): Card {
  return {
    cardId: card.cardId,
    merchantId: card.merchantId,
    cardOfferingId: card.offeringId,
    lastFour: card.lastFour,
    status: card.status,
    balance: money(card.balanceMinor, card.currency),
    currency: card.currency,
    createdAt: timestamp(card.createdAt),
  };
}

/** A transaction as CardTransactionResponse. */
export function presentTransaction(txn: TransactionRecord): Transaction {
  return {
    transactionId: txn.transactionId,
    cardId: txn.cardId,
    tradeNo: txn.tradeNo,
    type: txn.type,
    status: txn.status,
    amount: txn.amountText ?? money(txn.amountMinor, txn.currency),
    currency: txn.currency,
    merchantName: txn.merchantName,
    fee: money(txn.feeMinor, txn.currency),
    createdAt: timestamp(txn.createdAt),
  };
}

/** An offering as a CardOfferingResponse item. */
export function presentOffering(offering: OfferingRecord): Offering {
  return {
    id: offering.id,
    name: offering.name,
    network: offering.network,
    type: offering.type,
    currency: offering.currency,
    minLoadAmount: money(offering.minLoadMinor, offering.currency),
    maxLoadAmount: money(offering.maxLoadMinor, offering.currency),
    issuanceFee: money(offering.issuanceFeeMinor, offering.currency),
    depositFeePercent: offering.depositFeePercent,
    requiresHolder: offering.requiresHolder,
  };
}

/** The largest page the service serves; larger limits are clamped (reference-model section 1). */
export const MAX_PAGE_SIZE = 100;
/** The page size when none is asked for. */
export const DEFAULT_PAGE_SIZE = 20;

/**
 * The effective page and limit of a list request.
 * @throws ApiError VALIDATION_FAILED for a page too large to count exactly (SQLite refuses the
 * offset, and the page echoed back would not be the one asked for).
 */
export function pageWindow(
  page: number | undefined,
  limit: number | undefined,
  maxPageSize = MAX_PAGE_SIZE,
) {
  const effectivePage = page ?? 1;
  if (!Number.isSafeInteger(effectivePage)) {
    throw new ApiError('VALIDATION_FAILED', [`page must be at most ${Number.MAX_SAFE_INTEGER}`]);
  }
  const effectiveLimit = Math.min(limit ?? DEFAULT_PAGE_SIZE, maxPageSize);
  return {
    page: effectivePage,
    limit: effectiveLimit,
    offset: (effectivePage - 1) * effectiveLimit,
  };
}

/** The pagination object for a page. */
export function presentPagination(total: number, page: number, limit: number): Pagination {
  return { total, page, limit, totalPages: Math.ceil(total / limit) };
}
