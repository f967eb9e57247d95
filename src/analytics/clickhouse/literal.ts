/**
 * The one way a value enters ClickHouse SQL. ClickHouse 18.16 has no query parameters (`{a:String}` is
 * refused), so every value is written into the statement as a literal: strings quoted with backslash
 * escapes (the quote, the backslash and every control character), integers only when they are safe
 * integers, lists as tuples for `IN`. The store only ever passes ids, enumerated dimension names, epoch
 * days and milliseconds, and checks them first; this function is what makes even a hostile string inert.
 *
 * Statements are written with the `sql` tag: every `${}` goes through `literal`, except fragments marked
 * with `raw()` (table names and other constants of the code, never a value).
 */

export type Scalar = string | number;
export type Literal = Scalar | readonly Scalar[];

function escapeChar(char: string): string {
  switch (char) {
    case '\\':
      return '\\\\';
    case "'":
      return "\\'";
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
    case '\0':
      return '\\0';
    default:
      return `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
  }
}

function scalar(value: Scalar): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypeError(`not a safe integer for SQL: ${value}`);
    return String(value);
  }
  if (typeof value !== 'string') throw new TypeError(`not a string or an integer for SQL: ${typeof value}`);
  let text = "'";
  for (const char of value) {
    const code = char.charCodeAt(0);
    text += code < 0x20 || code === 0x7f || char === '\\' || char === "'" ? escapeChar(char) : char;
  }
  return `${text}'`;
}

/** A value as ClickHouse SQL: `'text'`, `42`, or `('a', 'b')` for a non-empty list. */
export function literal(value: Literal): string {
  if (Array.isArray(value)) {
    if (value.length === 0) throw new TypeError('an empty list has no SQL literal (IN () is a syntax error)');
    return `(${value.map(scalar).join(', ')})`;
  }
  return scalar(value as Scalar);
}

/** An epoch day (UTC) as a Date literal: `toDate('2025-03-15')`, read the same on every server timezone. */
export function dayLiteral(day: number): string {
  if (!Number.isSafeInteger(day) || day < 0 || day > 65_535) throw new RangeError(`not an epoch day: ${day}`);
  return `toDate(${literal(new Date(day * 86_400_000).toISOString().slice(0, 10))})`;
}

/** A fragment of SQL written by the code itself (a table name, a clause): never a value. */
export class RawSql {
  constructor(readonly text: string) {}
}
export const raw = (text: string) => new RawSql(text);

/** An epoch day for the `sql` tag: its Date literal (dayLiteral), already escaped. */
export const dayOf = (day: number) => new RawSql(dayLiteral(day));

/** A statement whose every interpolated value is a literal (`raw()` fragments are kept as they are). */
export function sql(strings: TemplateStringsArray, ...values: (Literal | RawSql)[]): string {
  let text = strings[0] ?? '';
  values.forEach((value, i) => {
    text += (value instanceof RawSql ? value.text : literal(value)) + (strings[i + 1] ?? '');
  });
  return text;
}
