import { CsvError, parse } from 'csv-parse/sync';
import { type ImportIssue, JOURNAL_COLUMNS, type JournalColumn, quoted } from './import-issue.js';

/** A data row of a journal file: its values by column, and the line where it starts. */
export interface JournalCsvRow {
  readonly line: number;
  readonly values: Readonly<Record<JournalColumn, string>>;
}

/** What {@link readJournalCsv} found: the rows it could read, and the lines it could not. */
export interface JournalCsv {
  /** Data records read (the header and empty lines excluded), the malformed ones included. */
  readonly records: number;
  readonly rows: readonly JournalCsvRow[];
  readonly issues: readonly ImportIssue[];
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Split an RFC 4180 journal file into rows keyed by the header's column names, each with the
 * physical line it starts on (CRLF or LF, quoted fields spanning lines, a UTF-8 BOM and empty
 * lines all counted as an editor shows them). The header may list the columns in any order but
 * must name each exactly once. A stray or unclosed quote stops the reading: past it, no row
 * boundary can be trusted, so it is reported with the rows' issues found before it.
 * @example
 * const { rows, issues } = readJournalCsv(readFileSync('journal.csv'));
 */
export function readJournalCsv(bytes: Buffer): JournalCsv {
  const lines = new LineIndex(bytes);
  const unreadable = firstNonUtf8Offset(bytes);
  if (unreadable !== undefined)
    return {
      records: 0,
      rows: [],
      issues: [{ line: lines.lineOf(unreadable), code: 'NOT_UTF8', reason: 'expected UTF-8 text' }],
    };

  const records: { values: string[]; line: number }[] = [];
  let end = 0;
  let syntax: ImportIssue | undefined;
  try {
    parse(bytes, {
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      on_record: (values: string[], context) => {
        records.push({ values, line: lines.lineOfRecordAfter(end) });
        end = context.bytes;
        return null;
      },
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    syntax = {
      line: lines.lineOfRecordAfter(end),
      code: 'CSV_SYNTAX',
      reason: syntaxReason(error),
    };
  }

  const [header, ...data] = records;
  if (!header) {
    return {
      records: 0,
      rows: [],
      issues: [
        syntax ?? {
          line: 1,
          code: 'BAD_HEADER',
          reason: `expected the header ${JOURNAL_COLUMNS.join(',')}, the file is empty`,
        },
      ],
    };
  }
  const headerProblem = checkHeader(header.values);
  if (headerProblem)
    return { records: data.length, rows: [], issues: [{ line: header.line, ...headerProblem }] };

  const rows: JournalCsvRow[] = [];
  const issues: ImportIssue[] = [];
  for (const record of data) {
    if (record.values.length !== header.values.length) {
      issues.push({
        line: record.line,
        code: 'FIELD_COUNT',
        reason: `expected ${header.values.length} fields as in the header, got ${record.values.length}`,
      });
      continue;
    }
    const values = Object.fromEntries(
      header.values.map((column, i) => [column, record.values[i] ?? '']),
    ) as Record<JournalColumn, string>;
    rows.push({ line: record.line, values });
  }
  if (syntax) issues.push(syntax);
  return { records: data.length, rows, issues };
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

/** Line numbers of byte offsets, counting LF, CRLF and a lone CR as one line break each. */
class LineIndex {
  readonly #bytes: Buffer;
  /** Offset where each line starts; line n starts at `#starts[n - 1]`. */
  readonly #starts: number[] = [0];

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i];
      if (byte === LF || (byte === CR && bytes[i + 1] !== LF)) this.#starts.push(i + 1);
    }
  }

  /** The line where the record after offset `end` starts, past any empty lines. */
  lineOfRecordAfter(end: number): number {
    let at = end;
    while (at < this.#bytes.length && (this.#bytes[at] === LF || this.#bytes[at] === CR)) at++;
    return this.lineOf(at);
  }

  lineOf(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }
}

/** Where the first LF-delimited stretch holding bytes that are not UTF-8 starts, if any. */
function firstNonUtf8Offset(bytes: Buffer): number | undefined {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    decoder.decode(bytes);
    return undefined;
  } catch {
    // A multi-byte sequence never contains LF, so line by line finds the culprit.
    let start = 0;
    for (let i = 0; i <= bytes.length; i++) {
      if (i < bytes.length && bytes[i] !== LF) continue;
      try {
        decoder.decode(bytes.subarray(start, i));
      } catch {
        return start;
      }
      start = i + 1;
    }
    return 0;
  }
}
