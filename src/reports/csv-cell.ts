/**
 * What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"): `=`, `+`, `-`,
 * `@`, tab and carriage return, and the full-width forms some spreadsheets fold into them; and
 * the `'` this module adds, so that a value that starts with one is told apart from a
 * neutralised one.
 */
const NEUTRALISED_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20']/;

/** A plain decimal number (`-12.50`, `3`): a spreadsheet reads it as a number, never a formula. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A text cell made safe to open in a spreadsheet: one that would start a formula gets a leading
 * `'` (the OWASP recommendation), except a plain decimal number, so amounts such as `-12.50`
 * stay numbers. A value that starts with `'` itself gets one more, so the value is always the
 * cell with one leading `'` dropped, if it has one: upstream ids `=x` and `'=x` stay apart.
 * @example neutraliseCell('=HYPERLINK("x")') // `'=HYPERLINK("x")`
 * @example neutraliseCell("'=x") // "''=x"
 * @example neutraliseCell('-12.50') // '-12.50'
 */
export function neutraliseCell(text: string): string {
  return NEUTRALISED_START.test(text) && !DECIMAL.test(text) ? `'${text}` : text;
}
