/**
 * What a spreadsheet reads as the start of a formula (OWASP, "CSV Injection"): `=`, `+`, `-`,
 * `@`, tab and carriage return, and the full-width forms some spreadsheets fold into them.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** A plain decimal number (`-12.50`, `3`): a spreadsheet reads it as a number, never a formula. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A text cell made safe to open in a spreadsheet: one that would start a formula gets a leading
 * `'` (the OWASP recommendation), except a plain decimal number, so amounts such as `-12.50`
 * stay numbers.
 * @example neutraliseCell('=HYPERLINK("x")') // `'=HYPERLINK("x")`
 * @example neutraliseCell('-12.50') // '-12.50'
 */
export function neutraliseCell(text: string): string {
  return FORMULA_START.test(text) && !DECIMAL.test(text) ? `'${text}` : text;
}
