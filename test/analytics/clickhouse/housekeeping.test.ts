import type { ClickHouseSettings } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ClickhouseClient, createClickhouseClient } from '../../../src/analytics/clickhouse/client.js';
import { createClickhouseHousekeeping } from '../../../src/analytics/clickhouse/housekeeping.js';
import { applySchema, tablesOf } from '../../../src/analytics/clickhouse/schema.js';
import { createClickhouseWrites } from '../../../src/analytics/clickhouse/write.js';
import { chdbKind, loadChdb } from '../../helpers/chdb.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { eventually } from '../../helpers/eventually.js';
import { clickInput } from '../setup.js';

/**
 * What deletes rows in ClickHouse (housekeeping.ts), on Debian's 18.16 and on a current release (chdb,
 * 26.x in-process): an erased organization's rows deleted by mutations in the tables that hold some, and
 * no one else's; a second sweep queues nothing; raw clicks' months past the cutoff dropped as partitions,
 * the rollups kept.
 */

/** chdb's session as the store's client (no streaming: housekeeping never streams). */
function chdbClient(): ClickhouseClient {
  const { Session } = loadChdb();
  const session = new Session();
  const run = (statement: string, format?: string) => session.query(statement, format);
  return {
    async rows<T>(statement: string): Promise<T[]> {
      return run(statement, 'JSONEachRow')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as T);
    },
    // biome-ignore lint/correctness/useYield: never called here.
    async *stream<T>(): AsyncGenerator<T[]> {
      throw new Error('not used');
    },
    async command(statement: string, _settings?: ClickHouseSettings): Promise<void> {
      run(statement);
    },
    async insert(table: string, rows: readonly object[]): Promise<void> {
      if (rows.length > 0)
        run(`INSERT INTO ${table} FORMAT JSONEachRow ${rows.map((row) => JSON.stringify(row)).join('\n')}`);
    },
    async close() {
      session.cleanup?.();
    },
  };
}

const JAN_2024 = Date.UTC(2024, 0, 15);
const MAR_2024 = Date.UTC(2024, 2, 15);

const engines = [
  { name: '18.16', skipReason: clickhouseKind.skipReason },
  { name: 'chdb', skipReason: chdbKind.skipReason },
] as const;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== null)(`ClickHouse housekeeping on ${engine.name}`, () => {
    let server: TestClickhouse | undefined;
    let client: ClickhouseClient;
    const database = `t_${Math.random().toString(16).slice(2, 14)}`;
    const t = tablesOf(database);

    beforeAll(async () => {
      if (engine.name === '18.16') {
        server = await startClickhouse();
        client = createClickhouseClient({
          url: server.httpUrl,
          username: 'default',
          password: '',
          database: 'default',
        });
      } else {
        client = chdbClient();
      }
      await applySchema(client, t);
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await server?.stop();
    });

    /** Every click stamped with one folder, so the group rollups have rows to erase too. */
    const inFolder = { stamps: async (items: readonly unknown[]) => items.map(() => ['f:x']) };

    const count = async (table: string, where: string) =>
      Number(
        (await client.rows<{ n: string }>(`SELECT count() AS n FROM ${database}.${table} WHERE ${where}`))[0]
          ?.n,
      );

    it('erases one organization, leaves the others, and queues nothing the second time', async () => {
      const writes = createClickhouseWrites(client, t, null as never, inFolder);
      await writes.writeClicks(
        [clickInput({ orgId: 'org-gone', linkId: 'l-1' }), clickInput({ orgId: 'org-kept', linkId: 'l-2' })],
        'b-erase',
      );
      const housekeeping = createClickhouseHousekeeping(client, t);
      expect(await housekeeping.eraseOrganization('org-gone')).toEqual([
        'clicks',
        'link_rollups',
        'org_rollups',
        'group_rollups',
        'link_days',
      ]);
      const left = await eventually(
        async () =>
          (await count('clicks', "org_id = 'org-gone'")) +
          (await count('link_rollups', "org_id = 'org-gone'")) +
          (await count('org_rollups', "org_id = 'org-gone'")) +
          (await count('group_rollups', "org_id = 'org-gone'")) +
          (await count('link_days', "org_id = 'org-gone'")),
        (n) => n === 0,
      );
      expect(left).toBe(0);
      expect(await count('clicks', "org_id = 'org-kept'")).toBe(1);
      expect(await count('link_rollups', "org_id = 'org-kept'")).toBeGreaterThan(0);
      expect(await housekeeping.eraseOrganization('org-gone')).toEqual([]);
    });

    it('drops the months of raw clicks that end by the cutoff, and keeps the rollups', async () => {
      const writes = createClickhouseWrites(client, t, null as never, inFolder);
      await writes.writeClicks(
        [clickInput({ orgId: 'org-old', at: JAN_2024 }), clickInput({ orgId: 'org-old', at: MAR_2024 })],
        'b-months',
      );
      const rollups = await count('org_rollups', "org_id = 'org-old'");
      const housekeeping = createClickhouseHousekeeping(client, t);
      // 2024-02-01 ends January only; a cutoff inside March keeps March.
      expect(await housekeeping.dropClicksBefore(Date.UTC(2024, 1, 1))).toEqual(['202401']);
      expect(await housekeeping.dropClicksBefore(Date.UTC(2024, 2, 20))).toEqual([]);
      expect(await count('clicks', "org_id = 'org-old'")).toBe(1);
      expect(await count('org_rollups', "org_id = 'org-old'")).toBe(rollups);
    });
  });
}
