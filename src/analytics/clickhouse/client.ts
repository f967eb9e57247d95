import { ClickHouseLogLevel, type ClickHouseSettings, createClient } from '@clickhouse/client';
import type { ClickhouseOptions } from '../../store/clickhouse-url.js';

/**
 * The HTTP client the ClickHouse store speaks through: the official `@clickhouse/client`, which works
 * against 18.16 as it is (tried: ping, JSONEachRow queries and inserts, DDL, per-query settings), kept
 * behind this narrow interface so the store sees rows, not the library. The address is the one parsed
 * from ANALYTICS_URL (url.ts); nothing else reaches the client's URL.
 */

export interface ClickhouseClient {
  /** A SELECT's rows (JSONEachRow: 64-bit integers come back as strings). */
  rows<T>(statement: string, settings?: ClickHouseSettings): Promise<T[]>;
  /** A SELECT's rows a chunk at a time, as the server sends them (the export). */
  stream<T>(statement: string, settings?: ClickHouseSettings): AsyncGenerator<T[]>;
  /** A statement without rows (DDL, ALTER). */
  command(statement: string, settings?: ClickHouseSettings): Promise<void>;
  /** One INSERT of `rows` into `table` (a name of schema.ts) as JSONEachRow: one block when it fits. */
  insert(table: string, rows: readonly object[], settings?: ClickHouseSettings): Promise<void>;
  close(): Promise<void>;
}

export interface ClickhouseClientOptions extends ClickhouseOptions {
  /** Per request; a hung server fails the batch, which the writer retries under the same id. */
  requestTimeoutMs?: number;
  /** Without it the client uses ANALYTICS_URL's database; schema.ts creates it through `default`. */
  useDatabase?: boolean;
}

export function createClickhouseClient(options: ClickhouseClientOptions): ClickhouseClient {
  const client = createClient({
    url: options.url,
    username: options.username,
    password: options.password,
    database: options.useDatabase === false ? 'default' : options.database,
    request_timeout: options.requestTimeoutMs ?? 30_000,
    application: 'linkhop',
    // Failures are thrown to the store's caller, which logs them once per outage (click-buffer.ts).
    log: { level: ClickHouseLogLevel.OFF },
  });
  return {
    async rows<T>(statement: string, settings?: ClickHouseSettings): Promise<T[]> {
      const result = await client.query({
        query: statement,
        format: 'JSONEachRow',
        ...(settings ? { clickhouse_settings: settings } : {}),
      });
      return result.json<T>();
    },

    async *stream<T>(statement: string, settings?: ClickHouseSettings): AsyncGenerator<T[]> {
      const result = await client.query({
        query: statement,
        format: 'JSONEachRow',
        ...(settings ? { clickhouse_settings: settings } : {}),
      });
      for await (const chunk of result.stream<T>()) yield chunk.map((row) => row.json<T>());
    },

    async command(statement: string, settings?: ClickHouseSettings): Promise<void> {
      await client.command({ query: statement, ...(settings ? { clickhouse_settings: settings } : {}) });
    },

    async insert(table: string, rows: readonly object[], settings?: ClickHouseSettings): Promise<void> {
      if (rows.length === 0) return;
      await client.insert({
        table,
        values: rows as object[],
        format: 'JSONEachRow',
        ...(settings ? { clickhouse_settings: settings } : {}),
      });
    },

    close: () => client.close(),
  };
}
