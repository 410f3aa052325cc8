import { stringify } from 'csv-stringify/sync';
import { neutraliseCell } from './csv-cell.js';

/** A cell: text (neutralised), a number, a boolean (`true`/`false`), or empty (null). */
export type CsvValue = string | number | boolean | null;

/** A row by column name; a column the row lacks is an empty cell. */
export type CsvRow = Readonly<Record<string, CsvValue>>;

/**
 * A CSV document: RFC 4180 (a header row, CRLF line ends, fields quoted when they hold a comma,
 * a quote, CR or LF), UTF-8 without a byte-order mark, every text cell neutralised against
 * formula injection ({@link neutraliseCell}).
 * @example csvText(['check', 'delta'], [{ check: 'NEGATIVE_BALANCE', delta: '-3.00' }])
 * // 'check,delta\r\nNEGATIVE_BALANCE,-3.00\r\n'
 */
export function csvText(columns: readonly string[], rows: readonly CsvRow[]): string {
  return stringify(
    rows.map((row) => columns.map((column) => cell(row[column]))),
    {
      header: true,
      columns: [...columns],
      record_delimiter: 'windows',
      // Without it, csv-stringify leaves a lone CR or LF unquoted once a delimiter is chosen.
      quote_record_delimiter: true,
    },
  );
}

function cell(value: CsvValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  return neutraliseCell(value);
}
