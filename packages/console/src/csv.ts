// CSV as RFC 4180 writes it: CRLF between records, a field quoted when it holds a quote, comma,
// CR or LF, and quotes inside doubled.

export type CsvValue = string | number | null

// A spreadsheet runs a cell that starts with one of these as a formula (CSV injection): text
// from the API (a key's name, a user agent) is kept as text by a leading apostrophe, as OWASP advises.
const FORMULA_START = /^[=+\-@\t\r]/

function field(value: CsvValue): string {
  if (value === null) return ''
  if (typeof value === 'number') return String(value)
  const text = FORMULA_START.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** The CSV text of a header and its rows, ending with CRLF. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvValue[])[]): string {
  return [header, ...rows].map((row) => `${row.map(field).join(',')}\r\n`).join('')
}
