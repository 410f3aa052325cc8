import { describe, expect, it } from 'vitest';
import { MalformedRecordError } from '../../src/api/index.js';
import { capturedLog } from '../api/client-fixtures.js';

const VISA = '4111111111111111';

describe('the logger', () => {
  it('redacts keys and tokens by their paths', () => {
    const log = capturedLog();
    log.logger.info({ apiKey: 'sk_live_secret', config: { apiKey: 'sk_live_other' } }, 'start');
    expect(log.text()).not.toContain('sk_live');
    expect(log.lines()[0]).toMatchObject({ apiKey: '[redacted]', msg: 'start' });
  });

  it('takes card numbers and CVVs out of a line wherever they sit: a malformed record inside an error, a number in a message', () => {
    const log = capturedLog();
    const raw = { cardId: 'card_1', lastFour: VISA, details: { cardNumber: VISA, cvv: '321' } };
    const error = new MalformedRecordError(raw, `/lastFour ${VISA} must match pattern`, {
      operation: 'listCards',
      attempts: 1,
    });
    log.logger.warn({ err: error, page: { records: [raw] } }, `record refused: ${VISA}`);
    const text = log.text();
    expect(text).not.toContain(VISA);
    expect(text).not.toContain('321');
    const [line] = log.lines();
    expect(line).toMatchObject({
      level: 40,
      msg: 'record refused: [redacted]',
      err: {
        type: 'MalformedRecordError',
        message: expect.stringContaining('/lastFour [redacted]'),
      },
      page: { records: [{ details: { cardNumber: '[redacted]', cvv: '[redacted]' } }] },
    });
    expect(typeof line?.time).toBe('number');
  });
});
