// Writing CSV for spreadsheets: RFC 4180 quoting plus the OWASP defence against formula injection.
// https://owasp.org/www-community/attacks/CSV_Injection
// https://www.rfc-editor.org/rfc/rfc4180

export type CsvValue = string | number | null;

/**
 * A text cell a spreadsheet could read as a formula or a DDE call: it starts with `=`, `+`, `-`,
 * `@`, a tab or a carriage return. Spaces before one of the first four are skipped too, because
 * some importers trim them before deciding what the cell is.
 */
const FORMULA_START = /^(?:[\t\r]| *[=+\-@])/;
/** Cells holding a delimiter (`,`, or `;` which many locales use instead), a quote or a line break, or padded with whitespace. */
const NEEDS_QUOTES = /[",;\r\n]|^\s|\s$/;

/**
 * One CSV cell. Text that could start a formula gets a leading `'`, which spreadsheets show as
 * text instead of evaluating; text with a delimiter, quote, line break or surrounding whitespace
 * is wrapped in `"` with inner quotes doubled. Numbers are written plainly (a negative number is
 * a value, not a formula), non-finite numbers and null as an empty cell.
 */
export function csvCell(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One CSV record: the cells joined by `,` and ended by CRLF, as RFC 4180 writes them. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
