/**
 * `ANALYTICS_URL=clickhouse://user:pass@host:8123/db` (or `clickhouses://` for HTTPS) as the options of
 * the HTTP client: the server's address is fixed by configuration, never built from a request, and the
 * database name is checked because schema.ts writes it into `CREATE DATABASE`.
 */

export interface ClickhouseOptions {
  /** `http(s)://host:port`, without credentials or path. */
  url: string;
  username: string;
  password: string;
  database: string;
}

const DATABASE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function parseClickhouseUrl(text: string): ClickhouseOptions {
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    throw new Error('ANALYTICS_URL is not a URL (expected clickhouse://user:pass@host:8123/db)');
  }
  const secure = parsed.protocol === 'clickhouses:';
  if (!secure && parsed.protocol !== 'clickhouse:')
    throw new Error(
      `ANALYTICS_URL: unsupported scheme ${parsed.protocol} (expected clickhouse: or clickhouses:)`,
    );
  if (!parsed.hostname) throw new Error('ANALYTICS_URL: no host');
  if (parsed.search || parsed.hash) throw new Error('ANALYTICS_URL: no query string or fragment is read');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || 'default';
  if (!DATABASE.test(database))
    throw new Error(
      'ANALYTICS_URL: the database name is letters, digits and underscores, not starting with a digit',
    );
  const port = parsed.port || (secure ? '8443' : '8123');
  return {
    url: `${secure ? 'https' : 'http'}://${parsed.hostname}:${port}`,
    username: decodeURIComponent(parsed.username) || 'default',
    password: decodeURIComponent(parsed.password),
    database,
  };
}
