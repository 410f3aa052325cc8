import type { FindingState, FindingsTable } from '../mirror/mirror-schema.js';
import type { CheckCode } from './check-code.js';
import type { Finding } from './finding.js';

/** An acknowledgement: why, until when, and the values it was given for. */
export interface Acknowledgement {
  readonly reason: string;
  readonly until: string;
  readonly at: string;
  readonly expected: string | null;
  readonly actual: string | null;
}

/** A finding as the mirror keeps it across reconciliations. */
export interface StoredFinding extends Finding {
  readonly state: FindingState;
  readonly firstSeenAt: string;
  readonly firstSeenRunId: string;
  readonly lastSeenAt: string;
  readonly lastSeenRunId: string;
  readonly resolvedAt: string | null;
  readonly resolvedRunId: string | null;
  readonly acknowledgement: Acknowledgement | null;
}

/** A `findings` row as a {@link StoredFinding}. */
export function storedFinding(row: FindingsTable): StoredFinding {
  return {
    check: row.check_code as CheckCode,
    severity: row.severity,
    merchantId: row.merchant_id,
    cardId: row.card_id,
    transactionId: row.transaction_id,
    orderNo: row.order_no,
    merchantOrderNo: row.merchant_order_no,
    tradeNo: row.trade_no,
    snapshotAt: row.snapshot_at,
    offeringId: row.offering_id,
    currency: row.currency,
    expected: row.expected,
    actual: row.actual,
    delta: row.delta,
    detail: row.detail,
    fingerprint: row.fingerprint,
    state: row.state,
    firstSeenAt: row.first_seen_at,
    firstSeenRunId: row.first_seen_run_id,
    lastSeenAt: row.last_seen_at,
    lastSeenRunId: row.last_seen_run_id,
    resolvedAt: row.resolved_at,
    resolvedRunId: row.resolved_run_id,
    acknowledgement:
      row.ack_reason === null || row.ack_until === null || row.ack_at === null
        ? null
        : {
            reason: row.ack_reason,
            until: row.ack_until,
            at: row.ack_at,
            expected: row.ack_expected,
            actual: row.ack_actual,
          },
  };
}
