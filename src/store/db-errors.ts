/**
 * Which failures mean "the database is away" (as opposed to a bug or a bad query): these become a 503
 * `unavailable` at the edge and a retry in the writers, never a 500 or a lost click.
 */

/** Socket-level failures Node reports on a connection to the database. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'SQLITE_BUSY',
]);

/**
 * PostgreSQL SQLSTATEs: class 08 (connection exception), 57P01-57P03 (admin or crash shutdown, cannot
 * connect now), 57014 (statement_timeout), 53300 (too many connections).
 */
const SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1-3]|57014|53300)$/;

/** The driver's and the pool's own wording when a connection ends, or waiting for one times out. */
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|is not queryable|Connection refused|connect ECONNREFUSED|read ECONNRESET|Client network socket disconnected/i;

export function isConnectionError(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const { code, message, errors, cause } = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && MESSAGES.test(message)) return true;
  // Node's happy-eyeballs connect reports an AggregateError of one failure per address.
  if (Array.isArray(errors) && errors.some((inner) => isConnectionError(inner, depth + 1))) return true;
  return cause !== undefined && isConnectionError(cause, depth + 1);
}
