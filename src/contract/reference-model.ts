/**
 * Names the reference model fixes outside the wire interface, shared by the job and the
 * sandbox so the two cannot drift apart: the discrepancy codes (reference-model.md section 6)
 * and the columns of a merchant's order journal file (section 5).
 */

/** The discrepancy codes of reference-model.md section 6, in report order. */
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

/** The columns of a merchant's order journal file, in the order section 5 lists them. */
export const JOURNAL_COLUMNS = [
  'merchantOrderNo',
  'kind',
  'cardId',
  'offeringId',
  'amount',
  'currency',
  'submittedAt',
  'orderNo',
] as const;

/** One column of the journal file. */
export type JournalColumn = (typeof JOURNAL_COLUMNS)[number];
