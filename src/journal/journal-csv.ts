import type { Writable } from 'node:stream';
import { type CsvError, Parser } from 'csv-parse';
import { type ImportIssue, JOURNAL_COLUMNS, type JournalColumn, quoted } from './import-issue.js';
import { StreamLines } from './stream-lines.js';
import { Utf8Watch } from './utf8-watch.js';

/** A data row of a journal file: its values by column, and the line where it starts. */
export interface JournalCsvRow {
  readonly line: number;
  readonly values: Readonly<Record<JournalColumn, string>>;
}

/** What {@link readJournalCsv} yields, in file order: a data row, or a line it cannot read. */
export type JournalCsvItem =
  | { readonly kind: 'row'; readonly row: JournalCsvRow }
  | { readonly kind: 'issue'; readonly issue: ImportIssue };

/** A record as the parser hands it over: its fields, and the line where it starts. */
interface ParsedRecord {
  readonly values: string[];
  readonly line: number;
}

/**
 * Read an RFC 4180 journal file as its bytes stream in: each data row keyed by the header's
 * column names, with the physical line it starts on (CRLF or LF, quoted fields spanning lines,
 * a UTF-8 BOM and empty lines all counted as an editor shows them), and each line that cannot be
 * read (FIELD_COUNT, BAD_HEADER, CSV_SYNTAX), in file order. Only a chunk or two of the file is
 * held at a time, however long it is.
 *
 * The header may list the columns in any order but must name each exactly once; past a bad
 * one no row is yielded. A stray or unclosed quote stops the parsing: past it, no row boundary
 * can be trusted. Either way the rest of the file is still read, for one check: bytes that are
 * not UTF-8, anywhere, end the reading with a NOT_UTF8 issue that supersedes every item before
 * it (the file is not text; what was read from it means nothing).
 * @example
 * for await (const item of readJournalCsv(createReadStream('journal.csv')))
 *   if (item.kind === 'row') console.log(item.row.line, item.row.values.merchantOrderNo);
 */
export async function* readJournalCsv(
  bytes: AsyncIterable<Uint8Array>,
): AsyncGenerator<JournalCsvItem, void, undefined> {
  const lines = new StreamLines();
  const parser = new LineParser(lines);
  // The loop below gets the parser's errors (a failing feed's); this only keeps one that comes
  // after the loop from counting as unhandled.
  parser.on('error', () => {});
  const stop = new AbortController();
  const feeding = feed(bytes, parser, lines, stop.signal);
  feeding.catch(() => {});

  let settled = false;
  try {
    let header: readonly string[] | undefined;
    let readable = true;
    for await (const record of parser as AsyncIterable<ParsedRecord>) {
      if (!readable) continue;
      if (header === undefined) {
        header = record.values;
        const problem = checkHeader(header);
        if (problem) {
          readable = false;
          yield { kind: 'issue', issue: { line: record.line, ...problem } };
        }
      } else if (record.values.length !== header.length) {
        yield {
          kind: 'issue',
          issue: {
            line: record.line,
            code: 'FIELD_COUNT',
            reason: `expected ${header.length} fields as in the header, got ${record.values.length}`,
          },
        };
      } else {
        const values: Partial<Record<JournalColumn, string>> = {};
        for (const [i, column] of header.entries())
          values[column as JournalColumn] = record.values[i] ?? '';
        yield {
          kind: 'row',
          row: { line: record.line, values: values as Record<JournalColumn, string> },
        };
      }
    }
    const stoppedBy = parser.syntaxError;
    const syntax: ImportIssue | undefined =
      stoppedBy && readable
        ? {
            line: lines.lineOfRecordAfter(parser.recordEnd),
            code: 'CSV_SYNTAX',
            reason: syntaxReason(stoppedBy),
          }
        : undefined;
    const notUtf8 = await feeding;
    settled = true;
    if (notUtf8 !== undefined)
      yield {
        kind: 'issue',
        issue: { line: notUtf8, code: 'NOT_UTF8', reason: 'expected UTF-8 text' },
      };
    else if (syntax) yield { kind: 'issue', issue: syntax };
    else if (header === undefined)
      yield {
        kind: 'issue',
        issue: {
          line: 1,
          code: 'BAD_HEADER',
          reason: `expected the header ${JOURNAL_COLUMNS.join(',')}, the file is empty`,
        },
      };
  } finally {
    // Left early (the caller stopped, or the bytes failed): stop reading before returning.
    if (!settled) {
      stop.abort();
      parser.destroy();
      await feeding.catch(() => {});
    }
  }
}

/**
 * A csv-parse parser whose records (string arrays) come out with the line where they start,
 * worked out as each is pushed, while the bytes it was parsed from are still at hand; and which
 * stops at the first syntax error without failing, so that the records before it still come out
 * (a failed stream drops those it holds) and `syntaxError` tells why it stopped.
 *
 * Not csv-parse's `on_record`: for it, the parser builds a context object per record (two
 * object spreads), which costs more than the parsing and, as V8 sees it, outlives the young
 * generation: 60 MB of old space per 400 000 rows. The one figure needed is `info.bytes`, the
 * bytes parsed so far (the BOM included), which at the push is where the record ends.
 */
class LineParser extends Parser {
  readonly #lines: StreamLines;
  readonly #stop: { error?: CsvError };
  #end = 0;

  constructor(lines: StreamLines) {
    const stop: { error?: CsvError } = {};
    super({
      bom: true,
      // Every line end, whichever the file's first: csv-parse would otherwise keep to the first
      // it meets, and a CRLF export with rows appended with LF would read as one long row.
      record_delimiter: ['\r\n', '\n', '\r'],
      relax_column_count: true,
      skip_empty_lines: true,
      // Past a syntax error no row boundary can be trusted: the records the parser still finds
      // (skipping the bad one) are dropped below, and the feed stops.
      skip_records_with_error: true,
      on_skip: (error) => {
        stop.error ??= error;
      },
    });
    this.#lines = lines;
    this.#stop = stop;
  }

  /** The syntax error the parsing stopped at, if it did. */
  get syntaxError(): CsvError | undefined {
    return this.#stop.error;
  }

  /** Where the last record pushed ends. */
  get recordEnd(): number {
    return this.#end;
  }

  override push(values: string[] | null): boolean {
    if (values === null) return super.push(null);
    if (this.#stop.error) return true;
    const record: ParsedRecord = { values, line: this.#lines.lineOfRecordAfter(this.#end) };
    this.#end = this.info.bytes;
    return super.push(record);
  }
}

/**
 * Pass the bytes on to the parser, checking on the way that they are UTF-8. Once the parser has
 * stopped at a syntax error, the rest is still read for that check. Resolves to the line where
 * the first stretch that is not UTF-8 starts (the reading stops there), else undefined.
 */
async function feed(
  bytes: AsyncIterable<Uint8Array>,
  parser: LineParser,
  lines: StreamLines,
  stop: AbortSignal,
): Promise<number | undefined> {
  const utf8 = new Utf8Watch();
  const parsing = () => !parser.destroyed && !parser.writableEnded;
  try {
    for await (const chunk of bytes) {
      if (stop.aborted) return undefined;
      const notUtf8 = utf8.push(chunk);
      if (notUtf8 !== undefined) {
        if (parsing()) parser.end();
        return notUtf8;
      }
      if (!parsing()) continue;
      lines.push(chunk);
      if (!parser.write(chunk)) await drained(parser);
      if (parser.syntaxError) parser.end();
    }
    const notUtf8 = utf8.end();
    if (parsing()) parser.end();
    return notUtf8;
  } catch (error) {
    parser.destroy(error as Error);
    throw error;
  }
}

/** Resolves when `stream` wants more, or is gone. */
function drained(stream: Writable): Promise<void> {
  if (stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}

function checkHeader(names: readonly string[]): Omit<ImportIssue, 'line'> | undefined {
  const expected = `expected the header ${JOURNAL_COLUMNS.join(',')} (any order)`;
  const known = new Set<string>(JOURNAL_COLUMNS);
  const unknown = names.filter((n) => !known.has(n));
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  const missing = JOURNAL_COLUMNS.filter((c) => !names.includes(c));
  const faults = [
    missing.length > 0 ? `missing ${missing.join(', ')}` : '',
    unknown.length > 0 ? `unknown ${unknown.map(quoted).join(', ')}` : '',
    repeated.length > 0 ? `repeated ${repeated.join(', ')}` : '',
  ].filter((f) => f !== '');
  if (faults.length === 0) return undefined;
  return { code: 'BAD_HEADER', reason: `${expected}; ${faults.join('; ')}` };
}

function syntaxReason(error: CsvError): string {
  switch (error.code) {
    case 'INVALID_OPENING_QUOTE':
      return 'not RFC 4180: a quote inside an unquoted field (quote the whole field and double the quote)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'not RFC 4180: a quoted field must end at a comma or the end of the line';
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'not RFC 4180: a quoted field is never closed';
    default:
      return `not RFC 4180 (${error.code}); nothing after this line was read`;
  }
}
