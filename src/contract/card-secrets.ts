import { isLosslessNumber } from 'lossless-json';

/** What a card secret is replaced with wherever cardsync keeps or logs what the upstream sent. */
export const REDACTED_SECRET = '[redacted]';

/**
 * Fields named as the contract's sensitive ones (`GET /cards/sensitive`) or their usual variants:
 * the value is replaced whatever it is, since a card number sent as a JSON number escapes the
 * digit-run search, which reads strings only.
 */
const SECRET_FIELD = /^(cardNumber|card_number|pan|cvv|cvv2|cvc|cvc2|securityCode|security_code)$/i;

/**
 * Identifiers and references (`transactionId`, `tradeNo`, `id`, ...): kept as sent, since the
 * sync and the reconciliation read them back from a quarantined record, and a numeric trade
 * reference may pass the Luhn check without being a card number.
 */
const ID_FIELD = /^(id|.+Id|.+No|.+_id|.+_no)$/;

/** 13 to 19 digits, single spaces or dashes allowed between them, not inside a longer number. */
const DIGIT_RUN = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
/** 13 digits so joined, anywhere: what {@link DIGIT_RUN} needs at the least (not global). */
const ANY_DIGIT_RUN = /\d(?:[ -]?\d){12}/;

/** Whether `digits` pass the Luhn check, as every card number does. */
function passesLuhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/**
 * `text` with every run of 13-19 digits that passes the Luhn check (what a card number looks
 * like, however it is labelled) replaced.
 * @example redactCardNumbers('lastFour 4111111111111111 is not 4 digits') // 'lastFour [redacted] is not 4 digits'
 */
export function redactCardNumbers(text: string): string {
  // A cheap test first: every transaction's merchant name comes through here.
  if (!ANY_DIGIT_RUN.test(text)) return text;
  return text.replace(DIGIT_RUN, (run) =>
    passesLuhn(run.replace(/[ -]/g, '')) ? REDACTED_SECRET : run,
  );
}

/**
 * A copy of `value` (parsed JSON, its numbers as doubles or kept as their text) without card
 * numbers and CVVs: the value of any field named `cardNumber` or `cvv` (or a usual variant:
 * `pan`, `securityCode`, ...) at any depth, and any
 * other string that holds a card number (a full number sent in `lastFour`, say), except in
 * identifiers. Numbers outside strings are left alone, so amounts and timestamps are never
 * touched. A malformed record from
 * the upstream may carry anything; card numbers and CVVs are never stored or logged.
 * @example withoutCardSecrets({ cardId: 'card_1', cvv: '123' }) // { cardId: 'card_1', cvv: '[redacted]' }
 */
export function withoutCardSecrets(value: unknown, key = ''): unknown {
  // A number kept as its text (src/contract/exact-json.ts) is a number here, not an object to copy.
  const number = isLosslessNumber(value);
  if (SECRET_FIELD.test(key) && value !== null && (typeof value !== 'object' || number))
    return REDACTED_SECRET;
  if (number) return value;
  if (typeof value === 'string') return ID_FIELD.test(key) ? value : redactCardNumbers(value);
  if (Array.isArray(value)) return value.map((item) => withoutCardSecrets(item, key));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) copy[name] = withoutCardSecrets(field, name);
  return copy;
}

/**
 * JSON text without card numbers and CVVs, as {@link withoutCardSecrets} leaves a value; text
 * that does not parse has its card numbers replaced as plain text.
 */
export function redactCardSecrets(json: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return redactCardNumbers(json);
  }
  return JSON.stringify(withoutCardSecrets(parsed));
}
