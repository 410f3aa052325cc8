import { type CheckCode, SEVERITY_OF, type Severity } from './check-code.js';
import { type FindingIds, fingerprintOf } from './finding-identity.js';

/**
 * One discrepancy. `expected`, `actual` and `delta` are decimal text in the currency's exponent
 * for amounts (`delta = actual - expected`); for a status or a currency they hold that text, and
 * they are null where the check has no value to show.
 */
export interface Finding extends FindingIds {
  readonly check: CheckCode;
  readonly severity: Severity;
  readonly merchantId: string;
  readonly currency: string | null;
  readonly expected: string | null;
  readonly actual: string | null;
  readonly delta: string | null;
  readonly detail: string;
  readonly fingerprint: string;
}

/** What a check states about a finding; the rest is derived. */
export type FindingFacts = Partial<
  Omit<Finding, 'check' | 'severity' | 'merchantId' | 'fingerprint'>
> & {
  readonly detail: string;
};

/**
 * Build a finding of `check` with its severity and fingerprint; ids not given are null.
 * @example makeFinding('NEGATIVE_BALANCE', 'mch_1', { cardId: 'card_1', detail: 'balance -3.00' })
 */
export function makeFinding(check: CheckCode, merchantId: string, facts: FindingFacts): Finding {
  const ids: FindingIds = {
    cardId: facts.cardId ?? null,
    transactionId: facts.transactionId ?? null,
    orderNo: facts.orderNo ?? null,
    merchantOrderNo: facts.merchantOrderNo ?? null,
    tradeNo: facts.tradeNo ?? null,
    snapshotAt: facts.snapshotAt ?? null,
    offeringId: facts.offeringId ?? null,
  };
  return {
    check,
    severity: SEVERITY_OF[check],
    merchantId,
    ...ids,
    currency: facts.currency ?? null,
    expected: facts.expected ?? null,
    actual: facts.actual ?? null,
    delta: facts.delta ?? null,
    detail: facts.detail,
    fingerprint: fingerprintOf(check, merchantId, ids),
  };
}
