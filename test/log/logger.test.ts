import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MalformedRecordError } from '../../src/api/index.js';
import { createLogger } from '../../src/log/logger.js';

const VISA = '4111111111111111';

/** A logger writing into memory, and its lines parsed once it has flushed. */
function capture() {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = createLogger({ level: 'debug', destination });
  return {
    logger,
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

describe('the logger', () => {
  it('redacts keys and tokens by their paths', () => {
    const log = capture();
    log.logger.info({ apiKey: 'sk_live_secret', config: { apiKey: 'sk_live_other' } }, 'start');
    expect(log.text()).not.toContain('sk_live');
    expect(log.lines()[0]).toMatchObject({ apiKey: '[redacted]', msg: 'start' });
  });

  it('takes card numbers and CVVs out of a line wherever they sit: a malformed record inside an error, a number in a message', () => {
    const log = capture();
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
