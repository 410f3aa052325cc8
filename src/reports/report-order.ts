import { CHECK_CODES, type CheckCode, SEVERITIES, type Severity } from '../recon/check-code.js';
import type { Finding } from '../recon/finding.js';

const CHECK_RANK = new Map<CheckCode, number>(CHECK_CODES.map((code, index) => [code, index]));
const SEVERITY_RANK = new Map<Severity, number>(SEVERITIES.map((s, index) => [s, index]));

/**
 * The order of the report files: most serious first, then by check (in reference-model
 * order), merchant and the finding's ids, compared by UTF-16 code units (not by locale), so the
 * order is the same on every host.
 * @example [...findings].sort(compareFindings)
 */
export function compareFindings(a: Finding, b: Finding): number {
  return (
    (SEVERITY_RANK.get(a.severity) ?? 9) - (SEVERITY_RANK.get(b.severity) ?? 9) ||
    (CHECK_RANK.get(a.check) ?? 99) - (CHECK_RANK.get(b.check) ?? 99) ||
    compare(a.merchantId, b.merchantId) ||
    compare(a.cardId, b.cardId) ||
    compare(a.transactionId, b.transactionId) ||
    compare(a.orderNo, b.orderNo) ||
    compare(a.merchantOrderNo, b.merchantOrderNo) ||
    compare(a.tradeNo, b.tradeNo) ||
    compare(a.snapshotAt, b.snapshotAt) ||
    compare(a.offeringId, b.offeringId) ||
    compare(a.fingerprint, b.fingerprint)
  );
}

/** UTF-16 code-unit order; an absent id sorts first. */
function compare(a: string | null, b: string | null): number {
  const x = a ?? '';
  const y = b ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
}
