import { describe, expect, it } from 'vitest';
import { parseClickhouseUrl } from '../../../src/store/clickhouse-url.js';

describe('ANALYTICS_URL for ClickHouse', () => {
  it('gives the HTTP address, the credentials and the database', () => {
    expect(parseClickhouseUrl('clickhouse://writer:s3cr%40t@ch.internal:8123/analytics')).toEqual({
      url: 'http://ch.internal:8123',
      username: 'writer',
      password: 's3cr@t',
      database: 'analytics',
    });
  });

  it('defaults the port, the user and the database; clickhouses:// is HTTPS on 8443', () => {
    expect(parseClickhouseUrl('clickhouse://ch')).toEqual({
      url: 'http://ch:8123',
      username: 'default',
      password: '',
      database: 'default',
    });
    expect(parseClickhouseUrl('clickhouses://u:p@ch.example/db_1').url).toBe('https://ch.example:8443');
    expect(parseClickhouseUrl('clickhouse://[::1]:9123/x').url).toBe('http://[::1]:9123');
  });

  it('refuses other schemes, query strings and database names that are not identifiers', () => {
    expect(() => parseClickhouseUrl('http://ch:8123/db')).toThrow(/scheme/);
    expect(() => parseClickhouseUrl('postgres://ch/db')).toThrow(/scheme/);
    expect(() => parseClickhouseUrl('not a url')).toThrow(/not a URL/);
    expect(() => parseClickhouseUrl('clickhouse://ch/db?x=1')).toThrow(/query string/);
    expect(() => parseClickhouseUrl('clickhouse://ch/db;DROP')).toThrow(/database name/);
    expect(() => parseClickhouseUrl('clickhouse://ch/1db')).toThrow(/database name/);
    expect(() => parseClickhouseUrl('clickhouse://ch/a%20b')).toThrow(/database name/);
  });
});
