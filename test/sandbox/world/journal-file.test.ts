import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSandbox, type TestSandbox } from '../../support/test-sandbox.js';

describe("a generated world's order journal", () => {
  let t: TestSandbox;
  beforeAll(async () => {
    t = await startTestSandbox({
      seed: 'journal-file',
      merchants: 1,
      world: { cards: 20, transactions: 200, days: 10, anomaliesPerCode: 0 },
    });
  });
  afterAll(async () => t?.close());

  it('is RFC 4180 CSV (reference-model section 5): a header row, every record ended by CRLF', async () => {
    const file = t.sandbox.merchants[0]?.journalFile;
    if (!file) throw new Error('no journal was written');
    const text = await readFile(file, 'utf8');
    expect(
      text.startsWith(
        'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo\r\n',
      ),
    ).toBe(true);
    expect(text.endsWith('\r\n')).toBe(true);
    // No field of a journal row holds a line break, so every one is a record delimiter.
    expect(text.match(/\r?\n/g)?.every((lineBreak) => lineBreak === '\r\n')).toBe(true);
    expect(text.split('\r\n').length).toBeGreaterThan(20);
  });
});
