import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importOrderBytes, importOrderFile } from '../../src/journal/order-import.js';
import { OrderImportError } from '../../src/journal/order-import-error.js';
import type { OrdersTable } from '../../src/mirror/mirror-schema.js';
import { type Mirror, openMirror } from '../../src/mirror/open-mirror.js';
import { Database } from '../../src/sqlite-driver.js';
import { useTempMirrors } from '../support/temp-mirrors.js';

const HEADER = 'merchantOrderNo,kind,cardId,offeringId,amount,currency,submittedAt,orderNo';
const AT = '2026-11-20T10:00:00.000Z';
const NOW = new Date('2026-11-21T02:00:00.000Z');
/** fs read streams hand over 64 KiB at a time. */
const READ_CHUNK = 64 * 1024;

let files = 0;
/** A number for a file name, unique within this file's temp folder. */
function nextFileNo(): number {
  files += 1;
  return files;
}
const t = useTempMirrors('cardsync-import-stream-');

function deposit(no: number, amount = '1.00'): string {
  return `mo-${no},DEPOSIT,card_${no % 97},,${amount},USD,${AT},ord_${no}`;
}

/** A journal of `rows` valid deposits, one per physical line after the header. */
function journalLines(rows: number): string[] {
  return [HEADER, ...Array.from({ length: rows }, (_, i) => deposit(i + 1))];
}

async function writeJournal(content: string | Buffer): Promise<string> {
  const file = join(t.dir, `journal-${nextFileNo()}-${Math.random().toString(36).slice(2)}.csv`);
  await writeFile(file, content);
  return file;
}

/** `bytes` handed over `size` bytes at a time. */
async function* chunksOf(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

function importBytes(db: Mirror, bytes: AsyncIterable<Uint8Array>) {
  return importOrderBytes(db.db, { bytes, file: 'books.csv', merchantId: 'mch_1', now: () => NOW });
}

async function refusalOf(result: Promise<unknown>): Promise<OrderImportError> {
  try {
    await result;
  } catch (error) {
    if (error instanceof OrderImportError) return error;
    throw error;
  }
  throw new Error('the import was not refused');
}

function orders(db = t.mirror): OrdersTable[] {
  return db.db.prepare('SELECT * FROM orders ORDER BY merchant_order_no').all() as OrdersTable[];
}

/** The connection as an import must leave it: no transaction, no staging, TEMP in memory. */
function expectConnectionClean(db = t.mirror): void {
  expect(db.db.inTransaction).toBe(false);
  expect(db.db.prepare('SELECT count(*) AS n FROM temp.sqlite_schema').get()).toEqual({ n: 0 });
  expect(db.db.pragma('temp_store', { simple: true })).toBe(2);
}

describe('importOrderFile on files longer than a read', () => {
  it('refuses a file of many chunks for faults near its end, with their lines, and writes nothing', async () => {
    const lines = journalLines(40_000);
    // A row spanning two lines, and one cut in two by a lone CR (a line break, unquoted).
    lines[1000] = `mo-1000,DEPOSIT,"card\nx",,1.00,USD,${AT},ord_1000`;
    lines[1001] = `mo-1001,DEPOSIT,card\ry,,1.00,USD,${AT},ord_1001`;
    lines[39_990] = `mo-39990,DEPOSTI,card_1,,1.00,USD,${AT},ord_39990`;
    lines.splice(20_000, 0, '', ''); // empty lines count as lines
    lines.push(deposit(7));
    const content = `${lines.join('\r\n')}\r\n`;
    expect(content.length).toBeGreaterThan(30 * READ_CHUNK);
    const file = await writeJournal(content);

    const error = await refusalOf(
      importOrderFile(t.mirror.db, { file, merchantId: 'mch_1', now: () => NOW }),
    );

    // Lines as an editor shows them: index + 1, one more past the quoted line break, one more
    // past the lone CR, two more past the empty lines.
    expect(error.issues.map((i) => [i.line, i.code, i.field])).toEqual([
      [1001, 'INVALID_FIELD', 'cardId'],
      [1003, 'FIELD_COUNT', undefined],
      [1004, 'FIELD_COUNT', undefined],
      [39_995, 'INVALID_FIELD', 'kind'],
      [40_006, 'DUPLICATE_IN_FILE', 'merchantOrderNo'],
    ]);
    expect(error.issues[4]?.reason).toBe('merchantOrderNo: mo-7 is already on line 8 of this file');
    expect(orders()).toEqual([]);
    expectConnectionClean();
  });

  it('imports a long file whole, and a second time changes nothing', async () => {
    const file = await writeJournal(`${journalLines(30_000).join('\n')}\n`);
    const first = await importOrderFile(t.mirror.db, { file, merchantId: 'mch_1', now: () => NOW });
    expect(first).toMatchObject({ rows: 30_000, inserted: 30_000, unchanged: 0 });
    const rows = orders();
    expect(rows).toHaveLength(30_000);
    expect(rows.find((r) => r.merchant_order_no === 'mo-29999')?.import_line).toBe(30_000);
    const again = await importOrderFile(t.mirror.db, {
      file,
      merchantId: 'mch_1',
      now: () => new Date('2026-12-01T00:00:00.000Z'),
    });
    expect(again).toMatchObject({ rows: 30_000, inserted: 0, unchanged: 30_000 });
    expect(orders()).toEqual(rows);
    expectConnectionClean();
  });

  it('refuses a file cut off in the middle of its last row, naming that line', async () => {
    const content = `${journalLines(5_000).join('\n')}\n`;
    const file = await writeJournal(content.slice(0, content.length - 30));
    const error = await refusalOf(importOrderFile(t.mirror.db, { file, merchantId: 'mch_1' }));
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([[5_001, 'FIELD_COUNT']]);
    expect(orders()).toEqual([]);
  });
});

describe('importOrderBytes however the bytes are cut', () => {
  const text = [
    `\uFEFF${HEADER}`,
    `"mo-1","ISSUE","","off,1","50.00","USD","${AT}","ord_1"`,
    '',
    `mo-2,DEPOSIT,card_é€𝄞,,25.5,USD,2026-11-20T11:00:00+01:00,ord_2`,
    `"mo-""3""",WITHDRAW,card_1,,10,USD,${AT},`,
    `mo-4,DEPOSIT,card_1,,10.005,USD,${AT},ord_4`,
  ].join('\r\n');

  it('imports the same rows, lines and warnings from chunks of any size', async () => {
    const bytes = Buffer.from(`${text}\r\n`);
    const results = [];
    for (const size of [1, 2, 3, 5, 64, bytes.length]) {
      const db = openMirror(join(t.dir, `cut-${nextFileNo()}-${size}.sqlite`));
      try {
        const result = await importBytes(db, chunksOf(bytes, size));
        const stored = orders(db).map((r) => [r.merchant_order_no, r.import_line, r.card_id]);
        results.push({ result, stored });
        expectConnectionClean(db);
      } finally {
        await db.close();
      }
    }
    expect(results[0]).toMatchObject({
      result: { rows: 4, inserted: 4, warnings: [{ line: 6, code: 'AMOUNT_TOO_PRECISE' }] },
      stored: [
        ['mo-"3"', 5, 'card_1'],
        ['mo-1', 2, null],
        ['mo-2', 4, 'card_é€𝄞'],
        ['mo-4', 6, 'card_1'],
      ],
    });
    for (const other of results) expect(other).toEqual(results[0]);
  });

  it('names the same offending lines from chunks of any size', async () => {
    const bytes = Buffer.from(
      `${text}\r\nmo-5,DEPOSIT,card\rx,,1.00,USD,${AT},\r\nmo-2,CANCEL,card_1,,,,${AT},\r\n`,
    );
    // The lone CR in line 7's cardId ends the line, and the row, so the repeated mo-2 is on line 9.
    const expected = [
      [7, 'FIELD_COUNT'],
      [8, 'FIELD_COUNT'],
      [9, 'DUPLICATE_IN_FILE'],
    ];
    for (const size of [1, 2, 7, bytes.length]) {
      const error = await refusalOf(importBytes(t.mirror, chunksOf(bytes, size)));
      expect(error.issues.map((i) => [i.line, i.code])).toEqual(expected);
    }
    expect(orders()).toEqual([]);
  });

  it('keeps the faults found before a stray quote met in the same chunk, and names its line', async () => {
    const bytes = Buffer.from(
      [
        HEADER,
        `mo-1,DEPOSTI,card_1,,1.00,USD,${AT},`,
        `mo-2,CANCEL,card_1,,,,${AT},`,
        `mo-3,CAN"CEL,card_1,,,,${AT},`,
        `mo-1,CANCEL,card_1,,,,${AT},`,
      ].join('\n'),
    );
    for (const size of [1, 5, bytes.length]) {
      const error = await refusalOf(importBytes(t.mirror, chunksOf(bytes, size)));
      expect(error.issues.map((i) => [i.line, i.code])).toEqual([
        [2, 'INVALID_FIELD'],
        [4, 'CSV_SYNTAX'],
      ]);
      expect(error.issues[1]?.reason).toMatch(/a quote inside an unquoted field/);
    }
  });

  it('names a bad header alone, whatever follows it', async () => {
    const bytes = Buffer.from(`${HEADER},kind\nmo-1,DEPOSTI,"card_1\nmo-2,CAN"CEL\n`);
    const error = await refusalOf(importBytes(t.mirror, chunksOf(bytes, 3)));
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([[1, 'BAD_HEADER']]);
  });

  it('refuses bytes that are not UTF-8 with that alone, even past a broken quote', async () => {
    const bytes = Buffer.concat([
      Buffer.from(
        `${HEADER}\nmo-1,DEPOSTI,card_1,,1.00,USD,${AT},\nmo-2,"CANCEL,card_1,,,,${AT},\n`,
      ),
      Buffer.from(`mo-3,CANCEL,card_1,,,,${AT},\nmo-4,CANCEL,caf`),
      Buffer.from([0xe9]),
      Buffer.from(`,,,,${AT},\n`),
    ]);
    for (const size of [1, 3, bytes.length]) {
      const error = await refusalOf(importBytes(t.mirror, chunksOf(bytes, size)));
      expect(error.issues).toEqual([{ line: 5, code: 'NOT_UTF8', reason: 'expected UTF-8 text' }]);
    }
    expectConnectionClean();
  });
});

describe('importOrderBytes when something fails mid-import', () => {
  it('rolls back when the bytes fail mid-file: the journal unchanged, the connection clean', async () => {
    await importBytes(t.mirror, chunksOf(Buffer.from(`${journalLines(10).join('\n')}\n`), 100));
    const before = orders();
    const bytes = Buffer.from(`${journalLines(20_000).join('\n')}\n`);
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield* chunksOf(bytes.subarray(0, 10 * READ_CHUNK), READ_CHUNK);
      throw new Error('the disk went away');
    }
    await expect(importBytes(t.mirror, failing())).rejects.toThrow('the disk went away');
    expect(orders()).toEqual(before);
    expectConnectionClean();
    // And the next import works.
    expect(await importBytes(t.mirror, chunksOf(bytes, READ_CHUNK))).toMatchObject({
      inserted: 19_990,
      unchanged: 10,
    });
  });

  it('stops when its signal is aborted mid-file: IMPORT_INTERRUPTED, nothing written, the connection clean', async () => {
    const bytes = Buffer.from(`${journalLines(20_000).join('\n')}\n`);
    const stop = new AbortController();
    async function* stoppedMidway(): AsyncGenerator<Uint8Array> {
      let sent = 0;
      for await (const chunk of chunksOf(bytes, READ_CHUNK)) {
        yield chunk;
        sent += 1;
        if (sent === 3) stop.abort();
      }
    }
    const error = await refusalOf(
      importOrderBytes(t.mirror.db, {
        bytes: stoppedMidway(),
        file: 'books.csv',
        merchantId: 'mch_1',
        signal: stop.signal,
      }),
    );
    expect(error.code).toBe('IMPORT_INTERRUPTED');
    expect(error.message).toBe('books.csv: interrupted; nothing was imported');
    expect(orders()).toEqual([]);
    expectConnectionClean();
  });

  it('says IMPORT_UNREADABLE for a path it can open but not read, leaving nothing behind', async () => {
    const folder = join(t.dir, `folder-${nextFileNo()}`);
    await mkdir(folder);
    await expect(
      importOrderFile(t.mirror.db, { file: folder, merchantId: 'mch_1' }),
    ).rejects.toThrow(expect.objectContaining({ code: 'IMPORT_UNREADABLE', issues: [] }));
    expectConnectionClean();
  });

  it('rolls every row back when one fails as it is written', async () => {
    await importBytes(t.mirror, chunksOf(Buffer.from(`${journalLines(10).join('\n')}\n`), 100));
    const before = orders();
    t.mirror.db.exec(
      `CREATE TRIGGER refuse_mo_4000 BEFORE INSERT ON orders WHEN NEW.merchant_order_no = 'mo-4000'
         BEGIN SELECT RAISE(ABORT, 'mo-4000 refused by the test'); END`,
    );
    const bytes = Buffer.from(`${journalLines(5_000).join('\n')}\n`);
    await expect(importBytes(t.mirror, chunksOf(bytes, READ_CHUNK))).rejects.toThrow(
      'mo-4000 refused by the test',
    );
    expect(orders()).toEqual(before);
    expectConnectionClean();
  });
});

describe('importOrderBytes and the rest of the mirror', () => {
  it('takes no write lock while the file streams in, and checks it against the journal as it is at the write', async () => {
    const bytes = Buffer.from(`${journalLines(3_000).join('\n')}\n`);
    async function* withAWriterMidway(): AsyncGenerator<Uint8Array> {
      let sent = 0;
      for await (const chunk of chunksOf(bytes, 8 * 1024)) {
        yield chunk;
        sent += 1;
        if (sent !== 2) continue;
        // Another connection writes while the import reads: it must not wait for a lock.
        const other = new Database(t.mirror.file, { timeout: 0 });
        try {
          other
            .prepare(
              `INSERT INTO orders (merchant_order_no, merchant_id, kind, card_id, amount,
                 amount_minor, currency, submitted_at, order_no, state, source, created_at,
                 updated_at)
               VALUES ('mo-2500', 'mch_1', 'DEPOSIT', 'card_75', '9.00', 900, 'USD', ?, 'ord_2500',
                 'IMPORTED', 'import', ?, ?)`,
            )
            .run(AT, AT, AT);
        } finally {
          other.close();
        }
      }
    }
    const error = await refusalOf(importBytes(t.mirror, withAWriterMidway()));
    expect(error.issues.map((i) => [i.line, i.code])).toEqual([[2_501, 'CONTRADICTS_JOURNAL']]);
    expect(error.issues[0]?.reason).toMatch(/amount: journaled 9.00, file 1.00/);
    expect(orders().map((r) => r.merchant_order_no)).toEqual(['mo-2500']);
  });

  it('leaves TEMP tables that the connection already has alone', async () => {
    t.mirror.db.exec('CREATE TEMP TABLE working (id INTEGER)');
    t.mirror.db.exec('INSERT INTO temp.working VALUES (1)');
    const file = await writeJournal(`${journalLines(100).join('\n')}\n`);
    expect(await importOrderFile(t.mirror.db, { file, merchantId: 'mch_1' })).toMatchObject({
      inserted: 100,
    });
    expect(t.mirror.db.prepare('SELECT id FROM temp.working').all()).toEqual([{ id: 1 }]);
    expect(t.mirror.db.pragma('temp_store', { simple: true })).toBe(2);
  });

  it('reads the file as a stream: its bytes as written, whatever its length', async () => {
    const file = await writeJournal(`${journalLines(3).join('\n')}\n`);
    expect(await readFile(file, 'utf8')).toContain('mo-3');
    const result = await importOrderFile(t.mirror.db, { file, merchantId: 'mch_1' });
    expect(result).toMatchObject({ file, rows: 3, inserted: 3 });
  });
});
