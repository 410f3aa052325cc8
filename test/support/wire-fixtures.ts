import { expect } from 'vitest';
import type { Card, Offering, Pagination, Transaction } from '../../src/contract/index.js';
import type { ApiClient, ApiResponse } from './api-client.js';
import { orderNo } from './test-sandbox.js';

/** A paginated response body. */
export interface Page<T> {
  readonly data: T[];
  readonly pagination: Pagination;
}

/** An error body other than the 401 (reference-model section 1). */
export interface ErrorReply {
  readonly statusCode: number;
  readonly error: string;
  readonly code: string;
  readonly message: string | string[];
}

/** A transaction as the control surface answers it. */
export type PostedTransaction = Transaction & {
  readonly visibleAt: string;
  readonly posted: boolean;
};

/** The transaction fields the control surface takes. */
export interface TransactionInput {
  readonly type: Transaction['type'];
  readonly status?: Transaction['status'];
  readonly amount: string;
  readonly fee?: string;
  readonly tradeNo?: string;
  readonly createdAt?: string;
  readonly merchantName?: string;
  readonly force?: boolean;
}

/** The merchant's offerings. */
export async function offeringsOf(api: ApiClient): Promise<Offering[]> {
  const response = await api.get<{ data: Offering[] }>('/merchants/offerings');
  expect(response.status).toBe(200);
  return response.body.data;
}

/** An offering that needs no holder, the one with the smallest minimum load. */
export async function holderFreeOffering(api: ApiClient): Promise<Offering> {
  const candidates = (await offeringsOf(api)).filter((o) => !o.requiresHolder);
  // One currency per merchant, so the digits alone order the amounts (no floats for money).
  const digits = (o: Offering) => BigInt(o.minLoadAmount.replace('.', ''));
  candidates.sort((a, b) => (digits(a) < digits(b) ? -1 : digits(a) > digits(b) ? 1 : 0));
  const [first] = candidates;
  if (!first) throw new Error('the merchant has no offering without a holder requirement');
  return first;
}

/** Every card of the merchant, all pages read. */
export async function allCards(api: ApiClient): Promise<Card[]> {
  const cards: Card[] = [];
  for (let page = 1; ; page++) {
    const response = await api.get<Page<Card>>('/cards', { query: { page, limit: 100 } });
    expect(response.status).toBe(200);
    cards.push(...response.body.data);
    if (page >= response.body.pagination.totalPages) return cards;
  }
}

/** Every visible transaction of the merchant matching `query`, all pages read. */
export async function allTransactions(
  api: ApiClient,
  query: Record<string, string> = {},
): Promise<Transaction[]> {
  const found: Transaction[] = [];
  for (let page = 1; ; page++) {
    const response = await api.get<Page<Transaction>>('/transactions', {
      query: { ...query, page, limit: 100 },
    });
    expect(response.status, response.text).toBe(200);
    found.push(...response.body.data);
    if (page >= response.body.pagination.totalPages) return found;
  }
}

/** An issuance the service accepted, with the card it created. */
export interface Issued {
  readonly orderNo: string;
  readonly merchantOrderNo: string;
  readonly cardId: string;
}

/**
 * Issue a card (expecting 201) and find the card it created by comparing the card lists before
 * and after, so the test learns the card id without trusting the list's order.
 */
export async function issueCard(
  api: ApiClient,
  offering: Offering,
  amount: string = offering.minLoadAmount,
  merchantOrderNo: string = orderNo('issue'),
): Promise<Issued> {
  const before = new Set((await allCards(api)).map((c) => c.cardId));
  const response = await api.post('/cards', { offeringId: offering.id, amount, merchantOrderNo });
  expect(response.status, response.text).toBe(201);
  const created = (await allCards(api)).filter((c) => !before.has(c.cardId));
  expect(created).toHaveLength(1);
  return { orderNo: response.body.data.orderNo, merchantOrderNo, cardId: created[0]?.cardId ?? '' };
}

/** Process one pending order through the control surface; returns its outcome. */
export async function processOrder(
  control: ApiClient,
  orderNumber: string,
  outcome?: 'success' | 'failure',
): Promise<string> {
  const response = await control.post('/_control/orders/process', {
    orderNo: orderNumber,
    ...(outcome ? { outcome } : {}),
  });
  expect(response.status, response.text).toBe(200);
  expect(response.body.processed).toHaveLength(1);
  return response.body.processed[0].outcome;
}

/** Issue a card and process the issuance successfully: an ACTIVE card. */
export async function activeCard(
  api: ApiClient,
  control: ApiClient,
  offering: Offering,
  amount?: string,
): Promise<Issued> {
  const issued = await issueCard(api, offering, amount);
  expect(await processOrder(control, issued.orderNo, 'success')).toBe('success');
  return issued;
}

/** Post a transaction on a card through the control surface (expecting 201). */
export async function postTransaction(
  control: ApiClient,
  cardId: string,
  input: TransactionInput,
): Promise<PostedTransaction> {
  const response = await control.post(`/_control/cards/${cardId}/transactions`, input);
  expect(response.status, response.text).toBe(201);
  return response.body.data;
}

/** Move the service clock forward. */
export async function advanceClock(control: ApiClient, ms: number): Promise<void> {
  const response = await control.post('/_control/clock', { advanceMs: ms });
  expect(response.status, response.text).toBe(200);
}

/** Assert an error answer: status, code, and the body's own statusCode. */
export function expectError(response: ApiResponse<unknown>, status: number, code: string): void {
  expect(response.status, response.text).toBe(status);
  const body = response.body as ErrorReply;
  expect(body.statusCode).toBe(status);
  expect(body.code).toBe(code);
}

/** Assert a 400 VALIDATION_FAILED whose message is a non-empty array of field errors. */
export function expectValidationFailure(response: ApiResponse<unknown>): void {
  expectError(response, 400, 'VALIDATION_FAILED');
  const message = (response.body as ErrorReply).message;
  expect(Array.isArray(message), response.text).toBe(true);
  expect(message.length).toBeGreaterThan(0);
}

/** The list order of reference-model section 1: newest first, ties by id descending. */
export function newestFirst<T>(createdAt: (item: T) => string, id: (item: T) => string) {
  return (a: T, b: T): number => {
    const byTime = Date.parse(createdAt(b)) - Date.parse(createdAt(a));
    if (byTime !== 0) return byTime;
    return id(a) < id(b) ? 1 : id(a) > id(b) ? -1 : 0;
  };
}
