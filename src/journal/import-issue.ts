import { JOURNAL_COLUMNS, type JournalColumn } from '../contract/reference-model.js';

export { JOURNAL_COLUMNS, type JournalColumn };

/** Why a line of a journal file is refused (or, for AMOUNT_TOO_PRECISE, only flagged). */
export type ImportIssueCode =
  /** The bytes are not UTF-8 text. */
  | 'NOT_UTF8'
  /** The header row is missing, or lacks, repeats or adds a column. */
  | 'BAD_HEADER'
  /** Not RFC 4180: a stray or unclosed quote. Parsing stops there. */
  | 'CSV_SYNTAX'
  /** A row with more or fewer fields than the header. */
  | 'FIELD_COUNT'
  /** A field breaks the rules of its column for the row's kind (`field` names it). */
  | 'INVALID_FIELD'
  /** A merchantOrderNo that an earlier line of the same file already used. */
  | 'DUPLICATE_IN_FILE'
  /** An orderNo that another merchantOrderNo already carries, in the file or the journal. */
  | 'DUPLICATE_ORDER_NO'
  /** A currency other than the merchant's (an account has one currency). */
  | 'CURRENCY_MISMATCH'
  /** A merchantOrderNo already journaled with other values. */
  | 'CONTRADICTS_JOURNAL'
  /** Warning only: more fractional digits than the currency has; kept, `amount_minor` NULL. */
  | 'AMOUNT_TOO_PRECISE';

/** One offending (or flagged) line of a journal file. */
export interface ImportIssue {
  /** 1-based physical line of the file where the row starts (the header is line 1). */
  readonly line: number;
  readonly code: ImportIssueCode;
  /** The column at fault, when one is. */
  readonly field?: JournalColumn;
  /** The row's merchantOrderNo, when it has one. */
  readonly merchantOrderNo?: string;
  /** One line, `what was expected, got what`. */
  readonly reason: string;
}

/**
 * Characters that do not show, or show as a plain space, in a terminal or a spreadsheet: format
 * characters (zero-width space, byte order mark, direction marks), spaces other than U+0020 (the
 * no-break space a spreadsheet pastes), line and paragraph separators, and C1 controls.
 */
const UNSEEN = /[\p{Cf}\p{Zs}\p{Zl}\p{Zp}\p{Cc}]/gu;

/**
 * `"text"`, cut to a readable length: how a bad value is quoted in a reason. A character that
 * would not show is written as its escape (`"DEPOSIT\u200b"`): a reason must show what is wrong.
 * @example quoted('1.00\u00a0') // '"1.00\\u00a0"'
 */
export function quoted(text: string): string {
  return JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text).replace(
    UNSEEN,
    (char) => (char === ' ' ? char : escaped(char)),
  );
}

function escaped(char: string): string {
  let units = '';
  for (let i = 0; i < char.length; i++)
    units += `\\u${char.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return units;
}
