import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import type { ApiClient } from './api-client.js';

/** An offering as GET /merchants/offerings shows it (the fields the checks read). */
export interface ClientOffering {
  readonly id: string;
  readonly currency: string;
  readonly minLoadAmount: string;
  readonly maxLoadAmount: string;
  readonly issuanceFee: string;
  readonly depositFeePercent: string;
}

/** A card as GET /cards shows it. */
export interface ClientCard {
  readonly cardId: string;
  readonly cardOfferingId: string;
  readonly status: string;
  readonly balance: string;
  readonly currency: string;
  readonly createdAt: string;
}

/** A transaction as GET /transactions shows it. */
export interface ClientTransaction {
  readonly transactionId: string;
  readonly cardId: string;
  readonly tradeNo: string;
  readonly type: string;
  readonly status: string;
  readonly amount: string;
  readonly currency: string;
  readonly fee: string;
  readonly createdAt: string;
}

/** A row of the merchant's order journal CSV (reference-model section 5). */
export interface JournalEntry {
  readonly merchantOrderNo: string;
  readonly kind: string;
  readonly cardId: string;
  readonly offeringId: string;
  readonly amount: string;
  readonly currency: string;
  readonly submittedAt: string;
  readonly orderNo: string;
}

/** Everything a client of one merchant can see: its upstream reads and its own books. */
export interface MerchantView {
  readonly merchantId: string;
  readonly offerings: readonly ClientOffering[];
  readonly cards: readonly ClientCard[];
  readonly transactions: readonly ClientTransaction[];
  readonly journal: readonly JournalEntry[];
  /** Card ids that transactions name and `/cards/info` answers 404 for. */
  readonly missingCards: ReadonlySet<string>;
}

const JOURNAL_HEADER = [
  'merchantOrderNo',
  'kind',
  'cardId',
  'offeringId',
  'amount',
  'currency',
  'submittedAt',
  'orderNo',
] as const;

/** Every item of a paginated list, read 100 at a time until `totalPages`. */
export async function readAllPages<T>(api: ApiClient, path: string): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const response = await api.get(path, { query: { page, limit: 100 } });
    expect(response.status, response.text).toBe(200);
    items.push(...(response.body.data as T[]));
    if (page >= response.body.pagination.totalPages) return items;
  }
}

/** Parse an order journal CSV: RFC 4180 with the header row of section 5. */
export function parseJournal(text: string): JournalEntry[] {
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  const header = text.slice(0, text.search(/\r?\n/)).split(',');
  expect(header).toEqual([...JOURNAL_HEADER]);
  return rows.map((row) => {
    const entry = Object.fromEntries(JOURNAL_HEADER.map((column) => [column, row[column] ?? '']));
    return entry as unknown as JournalEntry;
  });
}

/**
 * Read one merchant's view over HTTPS (all cards, all transactions, the offerings, and
 * `/cards/info` for every card a transaction names that the list lacks) plus its journal file.
 */
export async function readMerchantView(
  api: ApiClient,
  merchantId: string,
  journalFile: string,
): Promise<MerchantView> {
  const offeringsResponse = await api.get('/merchants/offerings');
  expect(offeringsResponse.status, offeringsResponse.text).toBe(200);
  const cards = await readAllPages<ClientCard>(api, '/cards');
  const transactions = await readAllPages<ClientTransaction>(api, '/transactions');
  const listed = new Set(cards.map((c) => c.cardId));
  const missingCards = new Set<string>();
  for (const cardId of new Set(transactions.map((t) => t.cardId))) {
    if (listed.has(cardId)) continue;
    const response = await api.get('/cards/info', { query: { cardId } });
    if (response.status === 404) {
      missingCards.add(cardId);
    } else {
      // A card of the merchant the list did not show: it still counts as one of its cards.
      expect(response.status, response.text).toBe(200);
      cards.push(response.body.data as ClientCard);
      listed.add(cardId);
    }
  }
  return {
    merchantId,
    offerings: offeringsResponse.body.data as ClientOffering[],
    cards,
    transactions,
    journal: parseJournal(await readFile(journalFile, 'utf8')),
    missingCards,
  };
}
