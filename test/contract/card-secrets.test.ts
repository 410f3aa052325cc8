import { describe, expect, it } from 'vitest';
import {
  REDACTED_SECRET,
  redactCardNumbers,
  redactCardSecrets,
  withoutCardSecrets,
} from '../../src/contract/card-secrets.js';
import { parseExactly, stringifyExactly } from '../../src/contract/exact-json.js';

// Test numbers of the card schemes: each passes the Luhn check.
const VISA = '4111111111111111';
const AMEX = '378282246310005';
const NOT_LUHN = '4111111111111112';

describe('card secrets', () => {
  it('replaces the value of a sensitive field at any depth, string or number', () => {
    expect(
      withoutCardSecrets({
        cardId: 'card_1',
        cardNumber: VISA,
        cvv: '123',
        nested: { deeper: [{ card_number: 4111111111111111, CVC: 987, expiryMonth: 12 }] },
      }),
    ).toEqual({
      cardId: 'card_1',
      cardNumber: REDACTED_SECRET,
      cvv: REDACTED_SECRET,
      nested: {
        deeper: [{ card_number: REDACTED_SECRET, CVC: REDACTED_SECRET, expiryMonth: 12 }],
      },
    });
  });

  it('replaces a card number under another name, grouped or not, and keeps the rest of the text', () => {
    expect(
      withoutCardSecrets({
        lastFour: VISA,
        note: `paid with 4111 1111 1111 1111 and ${AMEX.slice(0, 4)}-${AMEX.slice(4)}`,
      }),
    ).toEqual({
      lastFour: REDACTED_SECRET,
      note: `paid with ${REDACTED_SECRET} and ${REDACTED_SECRET}`,
    });
  });

  it('leaves digits that fail the Luhn check, shorter or longer runs, numbers and identifiers alone', () => {
    const record = {
      lastFour: NOT_LUHN,
      short: '411111111111',
      long: `${VISA}0000`,
      createdAt: '2026-11-26T10:00:00.123Z',
      amount: '41111111111111.11',
      minor: 4111111111111111,
      tradeNo: VISA,
      transactionId: VISA,
      merchantOrderNo: VISA,
      id: VISA,
    };
    expect(withoutCardSecrets(record)).toEqual(record);
  });

  it('replaces a sensitive field whose number is kept as written, and keeps every other such number as written', () => {
    const sent = parseExactly(
      `{"cvv":123,"pan":${NOT_LUHN},"amount":12.50,"fee":9007199254740993,"rate":1e400}`,
    );
    expect(stringifyExactly(withoutCardSecrets(sent))).toBe(
      `{"cvv":"${REDACTED_SECRET}","pan":"${REDACTED_SECRET}","amount":12.50,"fee":9007199254740993,"rate":1e400}`,
    );
  });

  it('works on JSON text, and on text that does not parse as plain text', () => {
    expect(
      redactCardSecrets(`{"a":{"b":{"cvv":"123","msg":"card ${VISA}"}},"time":1764151200000}`),
    ).toBe(
      `{"a":{"b":{"cvv":"${REDACTED_SECRET}","msg":"card ${REDACTED_SECRET}"}},"time":1764151200000}`,
    );
    expect(redactCardSecrets(`{"cut short ${VISA}`)).toBe(`{"cut short ${REDACTED_SECRET}`);
    expect(redactCardNumbers(`lastFour ${VISA} must match pattern`)).toBe(
      `lastFour ${REDACTED_SECRET} must match pattern`,
    );
  });
});
