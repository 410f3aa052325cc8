import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { Card, MerchantBalance, Offering, Transaction } from '../../src/contract/index.js';
import { MirrorError, type MirrorErrorCode } from '../../src/mirror/mirror-error.js';
import { type Mirror, openMirror } from '../../src/mirror/open-mirror.js';
import type { WriteContext } from '../../src/mirror/transaction-writer.js';

/** A fresh temp folder per test, and every mirror opened in it closed before it is removed. */
export interface TempMirrors {
  /** This test's temp folder. */
  dir(): string;
  /** Open (or create) a mirror file in this test's folder, closed after the test. */
  open(name?: string): Mirror;
  /** Close something else after the test (extra connections), before the folder goes. */
  defer(close: () => unknown): void;
}

/** Register the per-test temp folder; call at the top of a test file. */
export function useTempMirrors(): TempMirrors {
  let dir: string | undefined;
  let closers: (() => unknown)[] = [];
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cardsync-mirror-'));
    closers = [];
  });
  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });
  const current = () => {
    if (!dir) throw new Error('useTempMirrors: no test is running');
    return dir;
  };
  return {
    dir: current,
    open: (name = 'mirror.sqlite') => {
      const mirror = openMirror(join(current(), name));
      closers.push(() => mirror.close());
      return mirror;
    },
    defer: (close) => {
      closers.push(close);
    },
  };
}

/** The MirrorError `work` throws; fails the test when it throws something else or nothing. */
export function mirrorErrorOf(work: () => unknown, code: MirrorErrorCode): MirrorError {
  let thrown: unknown;
  try {
    work();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(MirrorError);
  const error = thrown as MirrorError;
  expect(error.code).toBe(code);
  return error;
}

/** A write context for `runId`, read at `observedAt`. */
export function context(runId: string, observedAt: string, merchantId = 'm-1'): WriteContext {
  return { merchantId, runId, observedAt };
}

/** A completed USD purchase of 12.50; override what the test is about. */
export function transaction(overrides: Partial<Transaction> = {}): Transaction {
  return {
    transactionId: 'tx-1',
    cardId: 'card-1',
    tradeNo: 'trade-1',
    type: 'PURCHASE',
    status: 'PENDING',
    amount: '12.50',
    currency: 'USD',
    merchantName: 'Corner Shop',
    fee: '0.25',
    createdAt: '2026-01-10T09:00:00.000Z',
    ...overrides,
  };
}

/** An active USD card holding 100.00. */
export function card(overrides: Partial<Card> = {}): Card {
  return {
    cardId: 'card-1',
    merchantId: 'm-1',
    cardOfferingId: 'off-1',
    lastFour: '4242',
    status: 'ACTIVE',
    balance: '100.00',
    currency: 'USD',
    createdAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A USD virtual Visa offering with a 2.00 issuance fee. */
export function offering(overrides: Partial<Offering> = {}): Offering {
  return {
    id: 'off-1',
    name: 'Virtual Visa',
    network: 'VISA',
    type: 'VIRTUAL',
    currency: 'USD',
    minLoadAmount: '10.00',
    maxLoadAmount: '5000.00',
    issuanceFee: '2.00',
    depositFeePercent: '1.5',
    requiresHolder: false,
    ...overrides,
  };
}

/** A merchant balance of 1000.00 USD. */
export function merchantBalance(overrides: Partial<MerchantBalance> = {}): MerchantBalance {
  return { balance: '1000.00', currency: 'USD', ...overrides };
}
