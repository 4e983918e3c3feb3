import type { ExportCell } from './types';

/**
 * A text a spreadsheet would run as a formula (`=HYPERLINK(…)` in a customer's name) gets a leading apostrophe. A
 * minus sign starts a formula only before something other than a number or a money sign: `-12.50` and `-$5.00` stay.
 */
const FORMULA = /^(?:[=+@\t\r]|-(?![\d\p{Sc}.]))/u;
const QUOTE = /[",\r\n]/;

/** One CSV cell (RFC 4180): quoted when it holds a quote, comma or line break. */
export function csvCell(value: ExportCell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  const text = FORMULA.test(value) ? `'${value}` : value;
  return QUOTE.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One CSV line, CRLF-terminated (RFC 4180). */
export function csvLine(cells: readonly ExportCell[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}
