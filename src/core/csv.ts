/**
 * One CSV cell (RFC 4180 quoting), with any text a spreadsheet would read as a formula (=, +, -, @, tab,
 * carriage return first) neutralized by a leading apostrophe: every export holds text typed by others.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

function neutralize(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function csvCell(value: string | number | null): string {
  if (value === null) return '';
  const safe = neutralize(String(value));
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}
