import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestClickhouse } from '../../helpers/clickhouse.js';
import { type HostedHarness, startHosted } from '../../helpers/hosted.js';
import { sqliteKind } from '../../helpers/stores.js';

/**
 * The hosted service with ANALYTICS_URL on a fresh ClickHouse database (through `port` when given: a
 * proxy in front of the test server), its spill in a folder of its own, and what the wiring tests read
 * beside the API: rows in ClickHouse, /health and /metrics.
 */
export async function startHostedOnClickhouse(
  ch: TestClickhouse,
  options: { port?: number; env?: Record<string, string> } = {},
) {
  const database = `t_${Math.random().toString(16).slice(2, 14)}`;
  const url = ch.urlFor(database).replace(`:${ch.port}/`, `:${options.port ?? ch.port}/`);
  const spillDir = mkdtempSync(join(tmpdir(), 'linkhop-ch-spill-'));
  const h: HostedHarness = await startHosted(sqliteKind, {
    ANALYTICS_URL: url,
    SPILL_DIR: spillDir,
    ...options.env,
  });
  return {
    h,
    database,
    url,
    spillDir,
    /** `SELECT count()` of `table` (clicks, link_rollups, org_rollups, outcomes) for the organization. */
    async rows(table: string, orgId: string): Promise<number> {
      const text = await ch.query(`SELECT count() FROM ${database}.${table} WHERE org_id = '${orgId}'`);
      return Number(text.trim());
    },
    async health(): Promise<{ status: number; body: Record<string, unknown> }> {
      const reply = await h.app.inject({ method: 'GET', url: '/health' });
      return { status: reply.statusCode, body: reply.json() };
    },
    /** One gauge of /metrics, or undefined when it is not shown. */
    async gauge(name: string): Promise<number | undefined> {
      const reply = await h.app.inject({ method: 'GET', url: '/metrics', headers: { host: 'lnk.example' } });
      const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(reply.body);
      return match ? Number(match[1]) : undefined;
    },
    async close() {
      await h.close();
      rmSync(spillDir, { recursive: true, force: true });
    },
  };
}

export type HostedOnClickhouse = Awaited<ReturnType<typeof startHostedOnClickhouse>>;
