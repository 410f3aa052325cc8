import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { neutraliseCell } from '../../src/reports/csv-cell.js';
import { csvText } from '../../src/reports/csv-text.js';

const parsed = (text: string) => parse(text, { columns: true }) as Record<string, string>[];

/** The documented way back from a cell to its value: a leading `'` was added; drop it. */
const value = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);

describe('neutraliseCell', () => {
  it.each([
    ['=HYPERLINK("x")', `'=HYPERLINK("x")`],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['+1', "'+1"],
    ['-1+2', "'-1+2"],
    ['-', "'-"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', "'\rcmd"],
    ['\uFF1D1+1', "'\uFF1D1+1"],
    ['\uFF0B1', "'\uFF0B1"],
    ['\uFF0D1', "'\uFF0D1"],
    ['\uFF20SUM(A1)', "'\uFF20SUM(A1)"],
  ])('prefixes %j, which a spreadsheet would read as a formula', (cell, safe) => {
    expect(neutraliseCell(cell)).toBe(safe);
  });

  it('gives distinct values distinct cells, each read back exactly by dropping a leading quote', () => {
    // Upstream ids are any text: a tradeNo `=x` and another `'=x` must not both read `'=x`.
    const values = ['=x', "'=x", "''=x", "'x", "'", "'-12.50", '-12.50', '-', "'-", 'x', ''];
    const cells = values.map(neutraliseCell);
    expect(new Set(cells).size).toBe(values.length);
    expect(cells.map(value)).toEqual(values);
  });

  it.each(['-12.50', '-3', '0.00', '1234', 'CARD_BALANCE_MISMATCH', 'a=b', ' =x', ''])(
    'leaves %j alone: a number, or text that does not start a formula',
    (cell) => {
      expect(neutraliseCell(cell)).toBe(cell);
    },
  );
});

describe('csvText', () => {
  it('writes a header row and CRLF line ends (RFC 4180), numbers and booleans as such', () => {
    const text = csvText(
      ['a', 'b', 'c'],
      [
        { a: 'x', b: 3, c: true },
        { a: null, b: -1.5 },
      ],
    );
    expect(text).toBe('a,b,c\r\nx,3,true\r\n,-1.5,\r\n');
  });

  it('writes only the header when there are no rows', () => {
    expect(csvText(['check', 'state'], [])).toBe('check,state\r\n');
  });

  it('neutralises formulas in text cells but keeps negative decimal amounts numbers', () => {
    const text = csvText(
      ['detail', 'delta'],
      [
        { detail: '=HYPERLINK("http://evil","click")', delta: '-12.50' },
        { detail: '@SUM(A1)', delta: '+1' },
        { detail: '\t=1+1', delta: '\r=2' },
      ],
    );
    expect(parsed(text)).toEqual([
      { detail: `'=HYPERLINK("http://evil","click")`, delta: '-12.50' },
      { detail: "'@SUM(A1)", delta: "'+1" },
      { detail: "'\t=1+1", delta: "'\r=2" },
    ]);
  });

  it('round-trips commas, quotes, CR, LF, CRLF and non-ASCII text through csv-parse', () => {
    const rows = [
      { id: 'a,b', text: 'say "hi", then go' },
      { id: 'line\nbreak', text: 'carriage\rreturn and\r\nboth' },
      { id: 'Zürich ¥ €', text: '東京 — Ελλάδα 😀' },
      { id: '"', text: '""' },
    ];
    const text = csvText(['id', 'text'], rows);
    expect(parsed(text)).toEqual(rows);
    expect(Buffer.from(text, 'utf8').subarray(0, 3)).not.toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });
});
