/** The discrepancy codes of reference-model section 6. */
export const CHECK_CODES = [
  'CARD_BALANCE_MISMATCH',
  'ISSUANCE_FEE_MISMATCH',
  'DEPOSIT_FEE_MISMATCH',
  'WITHDRAWAL_FEE_MISMATCH',
  'ORDER_NOT_REFLECTED',
  'LOAD_OUT_OF_BOUNDS',
  'CURRENCY_MISMATCH',
  'DUPLICATE_TRANSACTION',
  'OVER_REFUND',
  'ACTIVITY_ON_INACTIVE_CARD',
  'NEGATIVE_BALANCE',
  'ORPHAN_TRANSACTION',
  'MERCHANT_BALANCE_MISMATCH',
  'STALE_PENDING',
  'PRECISION_VIOLATION',
  'UNJOURNALED_CARD',
] as const;

/** A discrepancy code. */
export type CheckCode = (typeof CHECK_CODES)[number];

/**
 * A finding the world is known to contain, with the ids a report row identifies it by
 * (docs/findings.md says which ids identify each check).
 */
export interface PlantedFinding {
  readonly check: CheckCode;
  readonly merchantId: string;
  readonly cardId?: string;
  readonly transactionId?: string;
  readonly orderNo?: string;
  readonly merchantOrderNo?: string;
  readonly tradeNo?: string;
  /** What was planted, for a human reading the manifest. */
  readonly detail: string;
}

/** The ground-truth manifest of a generated world. */
export interface GroundTruth {
  readonly seed: string;
  /** The service clock when the world was generated. */
  readonly generatedAt: string;
  /** Each finding planted, knock-on findings included. */
  readonly findings: readonly PlantedFinding[];
  /** Codes not planted in a single generated world, and why. */
  readonly notPlanted: Readonly<Partial<Record<CheckCode, string>>>;
}
