import { decimal } from '../domain/money.ts';
import { type Report, sectionsOf } from './reportSections.ts';

/**
 * RFC 4180: quote a field holding a comma, quote, CR or LF; double the quotes inside. Text a spreadsheet
 * would run as a formula (starting with =, +, -, @, tab or CR, and not a number) gets a leading apostrophe:
 * ids and codes come from outside and must not execute when finance opens the file.
 */
export function csvField(value: unknown): string {
  let text =
    value === null || value === undefined
      ? ''
      : typeof value === 'object'
        ? JSON.stringify(value)
        : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text) && !/^[+-]?\d+(\.\d+)?$/.test(text))
    text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The report as CSV, one line at a time (CRLF). Layout: each section starts with a line `section,<name>`,
 * then its header, its rows, and an empty line. A money column appears twice: `<name>_cents` (integer)
 * and `<name>` (decimal, e.g. 12.34).
 */
export function* renderCsv(report: Report): Generator<string> {
  for (const section of sectionsOf(report)) {
    yield `section,${section.name}\r\n`;
    const header = section.columns.flatMap((column) =>
      section.money.includes(column) ? [`${column}_cents`, column] : [column],
    );
    yield `${header.map(csvField).join(',')}\r\n`;
    for (const row of section.rows) {
      const fields = section.columns.flatMap((column) => {
        const value = row[column];
        return section.money.includes(column)
          ? [value, typeof value === 'number' ? decimal(value) : '']
          : [value];
      });
      yield `${fields.map(csvField).join(',')}\r\n`;
    }
    yield '\r\n';
  }
}
