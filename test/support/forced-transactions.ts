import { expect } from 'vitest';
import type { TestSandbox } from './test-sandbox.js';

/** The first ACTIVE card of the sandbox's world, to post transactions on. */
export function activeCard(t: TestSandbox): string {
  return t.sandbox.context.store.db
    .prepare("SELECT card_id FROM cards WHERE status = 'ACTIVE' LIMIT 1")
    .pluck()
    .get() as string;
}

/** A transaction to post on a card, past the lifecycle's own rules (`force`). */
export interface ForcedTransaction {
  readonly type: string;
  readonly status: string;
  readonly amount: string;
  /** Epoch milliseconds: how far back it is posted, late. */
  readonly createdAt: number;
  /** The name the sandbox lists it under ('Test merchant' when absent). */
  readonly merchantName?: string;
}

/**
 * Post `transaction` on `cardId` through the sandbox's control surface, forced, and return its
 * id: how a test plants a late posting, or a row in a given status, anywhere in the history.
 */
export async function postForced(
  t: TestSandbox,
  cardId: string,
  transaction: ForcedTransaction,
): Promise<string> {
  const posted = await t.control.post(`/_control/cards/${cardId}/transactions`, {
    ...transaction,
    createdAt: new Date(transaction.createdAt).toISOString(),
    force: true,
  });
  expect(posted.status).toBe(201);
  return (posted.body as { data: { transactionId: string } }).data.transactionId;
}

/**
 * Post a COMPLETED verification of 0.00 at `createdAt` on `cardId` (the first ACTIVE card by
 * default), forced: a row that moves no balance, for tests of what the sync reads and when.
 */
export function postVerification(
  t: TestSandbox,
  createdAt: number,
  cardId: string = activeCard(t),
): Promise<string> {
  return postForced(t, cardId, {
    type: 'VERIFICATION',
    status: 'COMPLETED',
    amount: '0.00',
    createdAt,
  });
}
