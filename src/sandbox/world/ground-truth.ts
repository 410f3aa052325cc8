import { CHECK_CODES, type CheckCode } from '../../contract/reference-model.js';

export { CHECK_CODES, type CheckCode };

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
