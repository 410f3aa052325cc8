import type { StoredFinding } from '../recon/stored-finding.js';
import type { CsvRow } from './csv-text.js';

/**
 * The columns of `discrepancies.csv`, in their fixed order: job-interface.md's, then this
 * project's own at the end (`trade_no`, `snapshot_at`, `last_seen_at`, `offering_id`).
 */
export const DISCREPANCY_COLUMNS = [
  'check',
  'severity',
  'merchant_id',
  'card_id',
  'transaction_id',
  'order_no',
  'merchant_order_no',
  'currency',
  'expected',
  'actual',
  'delta',
  'detail',
  'fingerprint',
  'first_seen_at',
  'state',
  'trade_no',
  'snapshot_at',
  'last_seen_at',
  'offering_id',
] as const;

/** `resolved.csv`: the finding as last seen, `state` = `resolved`, and when it resolved. */
export const RESOLVED_COLUMNS = [...DISCREPANCY_COLUMNS, 'resolved_at'] as const;

/** `acknowledged.csv`: the finding, and the acknowledgement that keeps it out of the main report. */
export const ACKNOWLEDGED_COLUMNS = [
  ...DISCREPANCY_COLUMNS,
  'ack_reason',
  'ack_until',
  'ack_at',
] as const;

/** One finding as a row of any of the three finding reports. */
export function findingRow(f: StoredFinding): CsvRow {
  return {
    check: f.check,
    severity: f.severity,
    merchant_id: f.merchantId,
    card_id: f.cardId,
    transaction_id: f.transactionId,
    order_no: f.orderNo,
    merchant_order_no: f.merchantOrderNo,
    currency: f.currency,
    expected: f.expected,
    actual: f.actual,
    delta: f.delta,
    detail: f.detail,
    fingerprint: f.fingerprint,
    first_seen_at: f.firstSeenAt,
    state: f.state,
    trade_no: f.tradeNo,
    snapshot_at: f.snapshotAt,
    last_seen_at: f.lastSeenAt,
    offering_id: f.offeringId,
    resolved_at: f.resolvedAt,
    ack_reason: f.acknowledgement?.reason ?? null,
    ack_until: f.acknowledgement?.until ?? null,
    ack_at: f.acknowledgement?.at ?? null,
  };
}
