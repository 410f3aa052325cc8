import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOrderFile } from '../../src/journal/order-import.js';
import { OrderImportError } from '../../src/journal/order-import-error.js';
import type { OrdersTable } from '../../src/mirror/mirror-schema.js';
import { useTempMirrors } from '../support/temp-mirrors.js';

const HEADER = 'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo';
const AT = '2026-11-20T10:00:00.000Z';
const NOW = new Date('2026-11-21T02:00:00.000Z');

let files = 0;
/** A number for a file name, unique within this file's temp folder. */
function nextFileNo(): number {
  files += 1;
  return files;
}
const t = useTempMirrors('cardsync-import-');

async function journalFile(lines: readonly string[], eol = '\n', name?: string): Promise<string> {
  const file = join(
    t.dir,
    name ?? `journal-${nextFileNo()}-${Math.random().toString(36).slice(2)}.csv`,
  );
  await writeFile(file, lines.join(eol) + eol);
  return file;
}

function importFile(file: string, merchantId = 'mch_1') {
  return importOrderFile(t.mirror.db, { file, merchantId, now: () => NOW });
}

async function refusal(file: string, merchantId = 'mch_1'): Promise<OrderImportError> {
  try {
    await importFile(file, merchantId);
  } catch (error) {
    if (error instanceof OrderImportError) return error;
    throw error;
  }
  throw new Error('the import was not refused');
}

function orders(): OrdersTable[] {
  return t.mirror.db
    .prepare('SELECT * FROM orders ORDER BY merchant_order_no')
    .all() as OrdersTable[];
}

const VALID = [
  HEADER,
  `TOPUP-1,TOPUP,,,100000.00,USD,2026-11-01T00:00:00Z,`,
  `mo-1,ISSUE,,off_1,50.00,USD,${AT},ord_1`,
  `mo-2,DEPOSIT,card_1,,25.5,USD,2026-11-20T11:00:00+01:00,ord_2`,
  `mo-3,WITHDRAW,card_1,,10,USD,2026-11-20T12:00:00.123456Z,ord_3`,
  `mo-4,FREEZE,card_1,,,USD,${AT},ord_4`,
  `mo-5,UNFREEZE,card_1,,,,${AT},ord_5`,
  `mo-6,CANCEL,card_1,,,USD,${AT},`,
];

describe('importOrderFile on a valid file', () => {
  it('journals every row IMPORTED from source import, with minor units and UTC instants', async () => {
    const file = await journalFile(VALID, '\n', 'books.csv');
    const result = await importFile(file);
    expect(result).toMatchObject({ rows: 7, inserted: 7, unchanged: 0, warnings: [] });
    expect(result.merchantId).toBe('mch_1');
    const rows = orders();
    expect(rows.map((r) => [r.merchant_order_no, r.state, r.source])).toEqual([
      ['TOPUP-1', 'IMPORTED', 'import'],
      ['mo-1', 'IMPORTED', 'import'],
      ['mo-2', 'IMPORTED', 'import'],
      ['mo-3', 'IMPORTED', 'import'],
      ['mo-4', 'IMPORTED', 'import'],
      ['mo-5', 'IMPORTED', 'import'],
      ['mo-6', 'IMPORTED', 'import'],
    ]);
    const byNo = new Map(rows.map((r) => [r.merchant_order_no, r]));
    expect(byNo.get('mo-1')).toMatchObject({
      merchant_id: 'mch_1',
      kind: 'ISSUE',
      card_id: null,
      offering_id: 'off_1',
      amount: '50.00',
      amount_minor: 5000,
      currency: 'USD',
      submitted_at: AT,
      order_no: 'ord_1',
      import_file: 'books.csv',
      import_line: 3,
      error_code: null,
      request_json: null,
      created_at: NOW.toISOString(),
    });
    expect(byNo.get('mo-2')).toMatchObject({
      amount: '25.5',
      amount_minor: 2550,
      submitted_at: '2026-11-20T10:00:00.000Z',
    });
    expect(byNo.get('mo-3')?.submitted_at).toBe('2026-11-20T12:00:00.123Z');
    expect(byNo.get('mo-4')).toMatchObject({ amount: null, amount_minor: null, order_no: 'ord_4' });
    expect(byNo.get('mo-6')?.order_no).toBeNull();
    expect(byNo.get('TOPUP-1')).toMatchObject({ card_id: null, amount_minor: 10_000_000 });
  });

  it('changes nothing when the same file is imported again, and says the rows were known', async () => {
    const file = await journalFile(VALID);
    await importFile(file);
    const before = orders();
    const again = await importOrderFile(t.mirror.db, {
      file,
      merchantId: 'mch_1',
      now: () => new Date('2026-12-01T00:00:00.000Z'),
    });
    expect(again).toMatchObject({ rows: 7, inserted: 0, unchanged: 7 });
    expect(orders()).toEqual(before);
  });

  it('adds only the new rows of a longer export, whatever the order or the amount formatting', async () => {
    await importFile(await journalFile(VALID.slice(0, 4)));
    const longer = [
      HEADER,
      `mo-7,DEPOSIT,card_2,,5.00,USD,${AT},ord_7`,
      `mo-2,DEPOSIT,card_1,,25.50,USD,2026-11-20T10:00:00.000Z,ord_2`,
      ...VALID.slice(1, 3),
    ];
    const result = await importFile(await journalFile(longer));
    expect(result).toMatchObject({ rows: 4, inserted: 1, unchanged: 3 });
    expect(orders()).toHaveLength(4);
  });

  it('reads CRLF line ends, a BOM, quoted fields and quotes inside them, and counts lines as an editor does', async () => {
    const text = [
      `\uFEFF${HEADER}`,
      `"mo-1","ISSUE","","off_1","50.00","USD","${AT}","ord_1"`,
      '',
      `"mo-""q""",DEPOSIT,card_1,,1.00,USD,${AT},`,
      `mo-3,DEPOSIT,"card`,
      `x",,1.00,USD,${AT},`,
      `mo-4,DEPOSIT,card_1,,1.00,EURO,${AT},`,
    ].join('\r\n');
    const file = join(t.dir, 'crlf.csv');
    await writeFile(file, `${text}\r\n`);
    const error = await refusal(file);
    // The quoted field spanning lines 5-6 is reported at line 5; the next row is line 7.
    expect(error.issues.map((i) => [i.line, i.code, i.field])).toEqual([
      [5, 'INVALID_FIELD', 'cardId'],
      [7, 'INVALID_FIELD', 'currency'],
    ]);
    await writeFile(
      file,
      `${[`\uFEFF${HEADER}`, `"mo-1","ISSUE","","off_1","50.00","USD","${AT}","ord_1"`, '', `"mo-""q""",DEPOSIT,"card,1",,1.00,USD,${AT},`].join('\r\n')}\r\n`,
    );
    expect(await importFile(file)).toMatchObject({ rows: 2, inserted: 2 });
    const quoted = orders().find((r) => r.merchant_order_no === 'mo-"q"');
    expect(quoted).toMatchObject({ card_id: 'card,1', import_line: 4 });
  });

  it('reads a file whose line ends are mixed, rows appended with LF to a CRLF export', async () => {
    const file = join(t.dir, 'appended.csv');
    await writeFile(
      file,
      `${HEADER}\r\nmo-1,CANCEL,card_1,,,,${AT},\r\nmo-2,CANCEL,card_1,,,,${AT},\nmo-3,CANCEL,card_1,,,,${AT},\n`,
    );
    expect(await importFile(file)).toMatchObject({ rows: 3, inserted: 3 });
    expect(orders().map((r) => [r.merchant_order_no, r.card_id, r.import_line])).toEqual([
      ['mo-1', 'card_1', 2],
      ['mo-2', 'card_1', 3],
      ['mo-3', 'card_1', 4],
    ]);
  });

  it('reads a file whose line ends are mixed, rows appended with CRLF to an LF export', async () => {
    const file = join(t.dir, 'appended-crlf.csv');
    await writeFile(
      file,
      `${HEADER}\nmo-1,CANCEL,card_1,,,,${AT},ord_1\r\nmo-2,CANCEL,card_1,,,,${AT},ord_2\r\n`,
    );
    expect(await importFile(file)).toMatchObject({ rows: 2, inserted: 2 });
    expect(orders().map((r) => [r.merchant_order_no, r.order_no, r.import_line])).toEqual([
      ['mo-1', 'ord_1', 2],
      ['mo-2', 'ord_2', 3],
    ]);
  });

  it('takes the header columns in any order', async () => {
    const file = await journalFile([
      'orderNo,submittedAt,currency,amount,offeringId,cardId,kind,merchantOrderNo',
      `ord_9,${AT},USD,9.99,,card_1,DEPOSIT,mo-9`,
    ]);
    await importFile(file);
    expect(orders()[0]).toMatchObject({
      merchant_order_no: 'mo-9',
      amount_minor: 999,
      order_no: 'ord_9',
    });
  });
});

describe('importOrderFile with currencies of other exponents', () => {
  it('keeps JPY amounts whole and flags a fraction as too precise, keeping its text', async () => {
    const file = await journalFile([
      HEADER,
      `jp-1,TOPUP,,,1000000,JPY,${AT},`,
      `jp-2,DEPOSIT,card_1,,1500,JPY,${AT},ord_1`,
      `jp-3,DEPOSIT,card_1,,1500.5,JPY,${AT},ord_2`,
      `jp-4,DEPOSIT,card_1,,1500.0,JPY,${AT},ord_3`,
    ]);
    const result = await importFile(file, 'mch_jp');
    expect(result.inserted).toBe(4);
    expect(result.warnings.map((w) => [w.line, w.code, w.merchantOrderNo])).toEqual([
      [4, 'AMOUNT_TOO_PRECISE', 'jp-3'],
      [5, 'AMOUNT_TOO_PRECISE', 'jp-4'],
    ]);
    expect(orders().map((r) => [r.amount, r.amount_minor])).toEqual([
      ['1000000', 1_000_000],
      ['1500', 1500],
      ['1500.5', null],
      ['1500.0', null],
    ]);
  });

  it('keeps three decimals for BHD and flags a fourth', async () => {
    const file = await journalFile([
      HEADER,
      `bh-1,ISSUE,,off_1,12.345,BHD,${AT},ord_1`,
      `bh-2,WITHDRAW,card_1,,0.5,BHD,${AT},ord_2`,
      `bh-3,DEPOSIT,card_1,,1.2345,BHD,${AT},ord_3`,
    ]);
    const result = await importFile(file, 'mch_bh');
    expect(result.warnings.map((w) => w.line)).toEqual([4]);
    expect(result.warnings[0]?.reason).toMatch(/BHD allows \(3\)/);
    expect(orders().map((r) => r.amount_minor)).toEqual([12_345, 500, null]);
  });
});

describe('importOrderFile refusing a file', () => {
  it('names every offending line and why, and writes nothing', async () => {
    const file = await journalFile([
      HEADER, // 1
      `ok-1,DEPOSIT,card_1,,1.00,USD,${AT},ord_1`, // 2: valid, yet not written
      `bad-kind,DEPOSTI,card_1,,1.00,USD,${AT},`, // 3
      `bad-2,ISSUE,card_1,off_1,1.00,USD,${AT},`, // 4: cardId on ISSUE
      `bad-3,TOPUP,card_1,,1.00,USD,${AT},`, // 5: cardId on TOPUP
      `bad-4,DEPOSIT,,,1.00,USD,${AT},`, // 6: no cardId
      `bad-5,DEPOSIT,card_1,off_1,1.00,USD,${AT},`, // 7: offeringId not on ISSUE
      `bad-6,ISSUE,,,1.00,USD,${AT},`, // 8: ISSUE without offering
      `bad-7,FREEZE,card_1,,1.00,USD,${AT},`, // 9: amount on FREEZE
      `bad-8,DEPOSIT,card_1,,,USD,${AT},`, // 10: no amount
      `bad-9,DEPOSIT,card_1,,-1.00,USD,${AT},`, // 11: sign
      `bad-10,DEPOSIT,card_1,,0.00,USD,${AT},`, // 12: zero
      `bad-11,DEPOSIT,card_1,,1e3,USD,${AT},`, // 13: exponent
      `bad-12,DEPOSIT,card_1,,"1,000.00",USD,${AT},`, // 14: separator
      `bad-13,DEPOSIT,card_1,,1.00,,${AT},`, // 15: no currency
      `bad-14,DEPOSIT,card_1,,1.00,usd,${AT},`, // 16: unknown currency
      `bad-15,DEPOSIT,card_1,,1.00,USD,2026-11-20T10:00:00,`, // 17: no zone
      `bad-16,DEPOSIT,card_1,,1.00,USD,2026-11-20,`, // 18: date only
      `bad-17,DEPOSIT,card_1,,1.00,USD,2026-02-30T10:00:00Z,`, // 19: no such day
      `ok-1,DEPOSIT,card_1,,1.00,USD,${AT},ord_1`, // 20: repeated merchantOrderNo
      `bad-18,WITHDRAW,card_1,,1.00,USD,${AT},ord_1`, // 21: repeated orderNo
      `bad-19,TOPUP,,,1.00,USD,${AT},ord_x`, // 22: orderNo on TOPUP
      `bad 20,DEPOSIT,card_1,,1.00,USD,${AT},`, // 23: space in merchantOrderNo
      `bad-21,DEPOSIT,card_1,,1.00,USD,${AT}`, // 24: a field short
      `bad-22,CANCEL,,,5,,yesterday,`, // 25: three faults at once
    ]);
    const error = await refusal(file);
    expect(error.code).toBe('IMPORT_REFUSED');
    expect(error.message).toMatch(/23 offending lines; nothing was imported/);
    expect(error.issues.map((i) => [i.line, i.code, i.field ?? null])).toEqual([
      [3, 'INVALID_FIELD', 'kind'],
      [4, 'INVALID_FIELD', 'cardId'],
      [5, 'INVALID_FIELD', 'cardId'],
      [6, 'INVALID_FIELD', 'cardId'],
      [7, 'INVALID_FIELD', 'offeringId'],
      [8, 'INVALID_FIELD', 'offeringId'],
      [9, 'INVALID_FIELD', 'amount'],
      [10, 'INVALID_FIELD', 'amount'],
      [11, 'INVALID_FIELD', 'amount'],
      [12, 'INVALID_FIELD', 'amount'],
      [13, 'INVALID_FIELD', 'amount'],
      [14, 'INVALID_FIELD', 'amount'],
      [15, 'INVALID_FIELD', 'currency'],
      [16, 'INVALID_FIELD', 'currency'],
      [17, 'INVALID_FIELD', 'submittedAt'],
      [18, 'INVALID_FIELD', 'submittedAt'],
      [19, 'INVALID_FIELD', 'submittedAt'],
      [20, 'DUPLICATE_IN_FILE', 'merchantOrderNo'],
      [21, 'DUPLICATE_ORDER_NO', 'orderNo'],
      [22, 'INVALID_FIELD', 'orderNo'],
      [23, 'INVALID_FIELD', 'merchantOrderNo'],
      [24, 'FIELD_COUNT', null],
      [25, 'INVALID_FIELD', 'cardId'],
      [25, 'INVALID_FIELD', 'amount'],
      [25, 'INVALID_FIELD', 'submittedAt'],
    ]);
    const reasons = new Map(error.issues.map((i) => [i.line, i.reason]));
    expect(reasons.get(3)).toBe(
      'kind: expected one of ISSUE, DEPOSIT, WITHDRAW, FREEZE, UNFREEZE, CANCEL, TOPUP, got "DEPOSTI"',
    );
    expect(reasons.get(20)).toMatch(/already on line 2/);
    expect(reasons.get(21)).toMatch(/ord_1 is already the order of line 2 \(ok-1\)/);
    expect(reasons.get(24)).toMatch(/expected 8 fields as in the header, got 7/);
    expect(orders()).toEqual([]);
  });

  it('reports the other faults of a row whose kind is unknown as well, not the kind alone', async () => {
    // Another system's export: lower-case kinds, local times, its own currency names.
    const error = await refusal(
      await journalFile([HEADER, 'x-1,deposit,card_1,,1.000.00,EURO,2026-11-20 10:00,']),
    );
    expect(error.issues.map((i) => [i.line, i.field])).toEqual([
      [2, 'kind'],
      [2, 'currency'],
      [2, 'amount'],
      [2, 'submittedAt'],
    ]);
  });

  it('shows the invisible characters that make a value wrong, as escapes', async () => {
    // A zero-width space pasted after a kind, a no-break space after an amount.
    const error = await refusal(
      await journalFile([HEADER, `mo-1,DEPOSIT\u200b,card_1,,1.00\u00a0,USD,${AT},`]),
    );
    expect(error.issues.map((i) => i.reason)).toEqual([
      'kind: expected one of ISSUE, DEPOSIT, WITHDRAW, FREEZE, UNFREEZE, CANCEL, TOPUP, got "DEPOSIT\\u200b"',
      'amount: expected a decimal amount such as 25.00 (no sign, exponent or separators), got "1.00\\u00a0"',
    ]);
    // A second byte order mark, written by a tool that did not see the first.
    const header = await refusal(await journalFile([`\ufeff\ufeff${HEADER}`]));
    expect(header.issues[0]?.reason).toMatch(
      /missing merchantOrderNo; unknown "\\ufeffmerchantOrderNo"$/,
    );
  });

  it.each([
    ['a missing column', HEADER.replace(',orderNo', ''), /missing orderNo/],
    ['an unknown column', `${HEADER},note`, /unknown "note"/],
    ['a repeated column', `${HEADER},kind`, /repeated kind/],
  ])('refuses a header with %s at line 1', async (_name, header, reason) => {
    const error = await refusal(await journalFile([header, `mo-1,CANCEL,card_1,,,,${AT},`]));
    expect(error.issues).toEqual([
      { line: 1, code: 'BAD_HEADER', reason: expect.stringMatching(reason) },
    ]);
  });

  it('refuses an empty file', async () => {
    const file = join(t.dir, 'empty.csv');
    await writeFile(file, '');
    expect((await refusal(file)).issues).toEqual([
      { line: 1, code: 'BAD_HEADER', reason: expect.stringMatching(/the file is empty/) },
    ]);
  });

  it('accepts a header with no rows, importing nothing', async () => {
    expect(await importFile(await journalFile([HEADER]))).toMatchObject({ rows: 0, inserted: 0 });
  });

  it('stops at a broken quote, naming its line with the faults found before it', async () => {
    const error = await refusal(
      await journalFile([
        HEADER,
        `mo-1,DEPOSTI,card_1,,1.00,USD,${AT},`,
        `mo-2,CANCEL,card_1,,,,${AT},`,
        `mo-3,"CANCEL,card_1,,,,${AT},`,
        `mo-4,CANCEL,card_1,,,,${AT},`,
      ]),
    );
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([
      [2, 'INVALID_FIELD'],
      [4, 'CSV_SYNTAX'],
    ]);
    expect(error.issues[1]?.reason).toMatch(/never closed/);
  });

  it('refuses a file that is not UTF-8, naming the line', async () => {
    const file = join(t.dir, 'latin1.csv');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from(`${HEADER}\nmo-1,CANCEL,card_1,,,,${AT},\nmo-2,CANCEL,card_`),
        Buffer.from([0xe9, 0xff]),
        Buffer.from(`,,,,${AT},\n`),
      ]),
    );
    expect((await refusal(file)).issues).toEqual([
      { line: 3, code: 'NOT_UTF8', reason: 'expected UTF-8 text' },
    ]);
  });

  it('names the line of bytes that are not UTF-8 in a file whose lines end with a lone CR', async () => {
    // Classic Mac line ends, as Excel's "CSV (Macintosh)" writes them, in Mac Roman: é is 0x8e.
    const file = join(t.dir, 'mac-roman.csv');
    await writeFile(
      file,
      Buffer.concat([
        Buffer.from(`${HEADER}\rmo-1,CANCEL,card_1,,,,${AT},\rmo-2,CANCEL,card_caf`),
        Buffer.from([0x8e]),
        Buffer.from(`,,,,${AT},\r`),
      ]),
    );
    expect((await refusal(file)).issues).toEqual([
      { line: 3, code: 'NOT_UTF8', reason: 'expected UTF-8 text' },
    ]);
  });

  it('says IMPORT_UNREADABLE for a file that is not there', async () => {
    await expect(importFile(join(t.dir, 'nope.csv'))).rejects.toMatchObject({
      code: 'IMPORT_UNREADABLE',
      issues: [],
    });
  });

  it('refuses a currency other than the merchant account one', async () => {
    t.mirror.db
      .prepare(
        `INSERT INTO merchants (merchant_id, source, base_url, currency, first_seen_at, updated_at)
         VALUES ('mch_1', 'default', 'https://x', 'USD', ?, ?)`,
      )
      .run(AT, AT);
    const error = await refusal(
      await journalFile([
        HEADER,
        `mo-1,DEPOSIT,card_1,,1.00,USD,${AT},`,
        `mo-2,DEPOSIT,card_1,,1.00,EUR,${AT},`,
      ]),
    );
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([[3, 'CURRENCY_MISMATCH']]);
    expect(error.issues[0]?.reason).toMatch(/merchant's currency USD/);
  });

  it("names the rows in an odd currency, not the rest, when no currency is known yet: the file's commonest is the merchant's", async () => {
    // One EUR row at the head of a USD export: the first currency would refuse every USD row.
    const error = await refusal(
      await journalFile([
        HEADER,
        `mo-1,DEPOSIT,card_1,,1.00,EUR,${AT},`,
        `mo-2,DEPOSIT,card_1,,1.00,USD,${AT},`,
        `mo-3,DEPOSIT,card_1,,2.00,USD,${AT},`,
        `mo-4,FREEZE,card_1,,,,${AT},`,
      ]),
    );
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([[2, 'CURRENCY_MISMATCH']]);
    expect(error.issues[0]?.reason).toMatch(/merchant's currency USD .*got EUR/);
  });
});

describe('importOrderFile against the journal', () => {
  it('refuses a row contradicting a journaled merchantOrderNo, naming the fields, and rolls back every row', async () => {
    await importFile(await journalFile(VALID, '\n', 'first.csv'));
    const before = orders();
    const error = await refusal(
      await journalFile([
        HEADER,
        `new-1,DEPOSIT,card_9,,1.00,USD,${AT},ord_91`,
        `mo-2,DEPOSIT,card_1,,26.00,USD,2026-11-20T10:00:00Z,ord_2`,
        `new-2,DEPOSIT,card_9,,1.00,USD,${AT},ord_92`,
        `mo-4,UNFREEZE,card_2,,,USD,${AT},ord_4`,
        `new-3,DEPOSIT,card_9,,1.00,USD,${AT},ord_3`,
      ]),
    );
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([
      [3, 'CONTRADICTS_JOURNAL'],
      [5, 'CONTRADICTS_JOURNAL'],
      [6, 'DUPLICATE_ORDER_NO'],
    ]);
    expect(error.issues[0]?.reason).toBe(
      'contradicts the journaled mo-2 (imported from first.csv line 4): amount: journaled 25.5, file 26.00',
    );
    expect(error.issues[1]?.reason).toMatch(
      /kind: journaled FREEZE, file UNFREEZE; cardId: journaled card_1, file card_2/,
    );
    expect(error.issues[2]?.reason).toMatch(/ord_3 is already the order of journaled mo-3/);
    expect(orders()).toEqual(before);
  });

  it('takes an orderNo the books learnt since: it fills the row imported without one', async () => {
    // mo-6, a CANCEL, was exported while its request was on the wire: no orderNo yet.
    await importFile(await journalFile(VALID, '\n', 'monday.csv'));
    const learnt = VALID.map((line) => (line.startsWith('mo-6,') ? `${line}ord_6` : line));
    const result = await importFile(await journalFile(learnt, '\n', 'tuesday.csv'));
    expect(result).toMatchObject({ rows: 7, inserted: 0, orderNosLearnt: 1, unchanged: 6 });
    const row = orders().find((r) => r.merchant_order_no === 'mo-6');
    expect(row).toMatchObject({ order_no: 'ord_6', state: 'IMPORTED', import_file: 'monday.csv' });
    expect(row?.updated_at).toBe(NOW.toISOString());

    // Learnt twice is a re-import; one the books then lose again contradicts the journal.
    await expect(importFile(await journalFile(learnt))).resolves.toMatchObject({
      orderNosLearnt: 0,
      unchanged: 7,
    });
    const lost = await refusal(await journalFile(VALID));
    expect(lost.issues.map((i) => [i.line, i.code, i.merchantOrderNo])).toEqual([
      [8, 'CONTRADICTS_JOURNAL', 'mo-6'],
    ]);
    expect(lost.issues[0]?.reason).toMatch(/orderNo: journaled ord_6, file \(empty\)/);
  });

  it('refuses an orderNo learnt for a row when another journaled order holds it', async () => {
    await importFile(await journalFile(VALID));
    const before = orders();
    // Only mo-6's row, so the file itself holds ord_5 nowhere else: the journal's mo-5 does.
    const error = await refusal(await journalFile([HEADER, `${VALID[7]}ord_5`]));
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([[2, 'DUPLICATE_ORDER_NO']]);
    expect(error.issues[0]?.reason).toMatch(/ord_5 is already the order of journaled mo-5/);
    expect(orders()).toEqual(before);
  });

  it('refuses a merchantOrderNo journaled for another merchant', async () => {
    await importFile(await journalFile(VALID.slice(0, 2)), 'mch_1');
    const error = await refusal(await journalFile(VALID.slice(0, 2)), 'mch_2');
    expect(error.issues[0]?.reason).toMatch(/merchant: journaled mch_1, file mch_2/);
  });

  it('treats an order cardsync submitted as known when the books agree, whatever their time', async () => {
    const at = new Date().toISOString();
    t.mirror.db
      .prepare(
        `INSERT INTO orders (merchant_order_no, merchant_id, kind, card_id, offering_id, amount,
           amount_minor, currency, submitted_at, order_no, state, error_code, request_json, source,
           import_file, import_line, created_at, updated_at)
         VALUES ('cs-1', 'mch_1', 'DEPOSIT', 'card_1', NULL, '5.00', 500, 'USD', ?, 'ord_cs1',
           'ACCEPTED', NULL, '{}', 'cli', NULL, NULL, ?, ?)`,
      )
      .run(at, at, at);
    const agreeing = await importFile(
      await journalFile([HEADER, `cs-1,DEPOSIT,card_1,,5,USD,${AT},ord_cs1`]),
    );
    expect(agreeing).toMatchObject({ inserted: 0, unchanged: 1 });
    const error = await refusal(
      await journalFile([HEADER, `cs-1,DEPOSIT,card_1,,6.00,USD,${AT},ord_cs1`]),
    );
    expect(error.issues[0]?.reason).toMatch(
      /submitted by cardsync, ACCEPTED\): amount: journaled 5.00, file 6.00/,
    );
  });
});
