import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MalformedRecordError } from '../../src/api/index.js';
import { capturedLog } from '../api/client-fixtures.js';

const VISA = '4111111111111111';
/** The built logger, as the CLI loads it. */
const LOGGER = fileURLToPath(new URL('../../dist/log/logger.js', import.meta.url));

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
    // The CVV's three digits may turn up by chance in the line's own numbers: its time in
    // milliseconds, its pid, the line and column numbers of the stack's frames.
    const ownNumbers = /"(?:time|pid)":\d+|:\d+:\d+/g;
    expect(text.replace(ownNumbers, '')).not.toContain('321');
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

describe('the logger on stderr', () => {
  it('writes each line before the call returns, so a plain line written after comes after it', () => {
    // What a failing command does: log, then write its one plain line; an asynchronous buffer
    // let that line overtake the JSON lines still queued, amid what a log shipper parses.
    const script = `
      const { createLogger } = await import(${JSON.stringify(LOGGER)});
      const logger = createLogger();
      for (let i = 0; i < 3; i++) logger.info({ i }, 'line');
      process.stderr.write('cardsync: the plain line\\n');
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
    });
    expect(child.status, child.stderr).toBe(0);
    const lines = child.stderr.trimEnd().split('\n');
    expect(lines.at(-1)).toBe('cardsync: the plain line');
    expect(lines.slice(0, -1).map((l) => (JSON.parse(l) as { i: number }).i)).toEqual([0, 1, 2]);
  });
});
