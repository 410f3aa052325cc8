import { Type } from 'typebox';

/** An amount in a response: decimal text, possibly negative (a card can be overdrawn). */
export const AmountText = Type.String({
  pattern: '^-?\\d+(\\.\\d+)?$',
  description: 'Decimal amount as text, e.g. "10.00" (JPY "1000")',
  examples: ['10.00'],
});

/** An amount in a request: unsigned decimal text, at most the currency's fractional digits. */
export const RequestAmount = Type.String({
  pattern: '^\\d{1,15}(\\.\\d{1,9})?$',
  description: 'Unsigned decimal amount as text with at most the currency exponent digits',
  examples: ['25.00'],
});

/** A percentage as decimal text, e.g. "1.5". */
export const PercentText = Type.String({ pattern: '^\\d+(\\.\\d+)?$', examples: ['1.5'] });

/**
 * An ISO 8601 UTC timestamp. The interface promises milliseconds only for a card's `createdAt`,
 * and "ISO 8601 strings in UTC" otherwise, so a client accepts seconds, or more fractional
 * digits, and `Z` or a zero offset (the service itself always writes milliseconds and `Z`).
 */
export const Timestamp = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?(Z|[+-]00:?00)$',
  description: 'ISO 8601 UTC timestamp, e.g. 2026-11-21T02:00:00.000Z',
  examples: ['2026-11-21T02:00:00.000Z'],
});

/** An ISO 8601 instant accepted in a query (date, date-time, with Z or an offset). */
export const TimestampQuery = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2}))?$',
  description: 'ISO 8601 date or date-time; a date-time needs Z or an offset',
});

/** A three-letter currency code. */
export const CurrencyCode = Type.String({ pattern: '^[A-Z]{3}$', examples: ['USD'] });

/** An opaque identifier. */
export const Identifier = Type.String({ minLength: 1, maxLength: 128 });

/** The merchant's own order reference. */
export const MerchantOrderNo = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[\\x21-\\x7E]+$',
  description: 'Unique merchant order reference (printable ASCII, no spaces)',
});

/** A positive whole number in a query string (page, limit). */
export const PositiveIntegerQuery = Type.Integer({ minimum: 1 });
