/** Card statuses, as the interface lists them; plain data, for callers that need no schema. */
export const CARD_STATUSES = [
  'PENDING',
  'ACTIVE',
  'FREEZING',
  'FROZEN',
  'UNFREEZING',
  'CANCELLING',
  'CANCELLED',
  'FAILED',
  'BLOCKED',
] as const;

/** One of {@link CARD_STATUSES}. */
export type CardStatus = (typeof CARD_STATUSES)[number];
