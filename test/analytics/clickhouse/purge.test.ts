import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { childEnv } from '../../helpers/env.js';
import { eventually } from '../../helpers/eventually.js';
import { UA } from '../../helpers/user-agents.js';
import { type HostedOnClickhouse, startHostedOnClickhouse } from './hosted.js';

/**
 * `linkhop org purge` with ANALYTICS_URL (issue #35): the purge deletes the organization's row, so the
 * instances' erased-organization sweep could never find its ClickHouse rows afterwards; the CLI erases
 * them first. With ClickHouse unreachable it refuses, and nothing is changed. The built CLI.
 */

const CLI = join(import.meta.dirname, '../../../dist/cli/main.js');
const TABLES = ['clicks', 'link_rollups', 'org_rollups'];

describe.skipIf(clickhouseKind.skipReason !== null)('org purge with ANALYTICS_URL', () => {
  let ch: TestClickhouse;
  let on: HostedOnClickhouse;

  beforeAll(async () => {
    ch = await startClickhouse();
    on = await startHostedOnClickhouse(ch);
  }, 60_000);
  afterAll(async () => {
    await on?.close();
    await ch?.stop();
  });

  /** An organization with one visited link whose click is in ClickHouse. */
  async function visitedOrganization() {
    const { orgId, apiKey } = await on.h.owner('legend');
    const link = (
      await on.h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com/p' } })
    ).json() as { slug: string };
    const visit = await on.h.app.inject({
      method: 'GET',
      url: `/${link.slug}`,
      headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
    });
    expect(visit.statusCode).toBe(302);
    await eventually(
      () => on.rows('clicks', orgId),
      (count) => count === 1,
    );
    return orgId;
  }

  const purge = (orgId: string, analyticsUrl: string) =>
    spawnSync(process.execPath, [CLI, 'org', 'purge', orgId], {
      env: childEnv({ DATABASE_URL: on.h.testStore.url, ANALYTICS_URL: analyticsUrl }),
      encoding: 'utf8',
    });

  it("erases the organization's rows in ClickHouse, and no one else's", async () => {
    const doomed = await visitedOrganization();
    const kept = await visitedOrganization();
    const result = purge(doomed, on.url);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ orgId: doomed, linksDeleted: 1 });
    // ALTER TABLE ... DELETE is a mutation: 18.16 finishes it in the background.
    for (const table of TABLES) {
      await eventually(
        () => on.rows(table, doomed),
        (count) => count === 0,
      );
      expect(await on.rows(table, kept)).toBeGreaterThan(0);
    }
  });

  it('refuses while ClickHouse cannot be reached, and changes nothing', async () => {
    const orgId = await visitedOrganization();
    const away = on.url.replace(`:${ch.port}/`, ':1/');
    const result = purge(orgId, away);
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/ClickHouse at ANALYTICS_URL could not erase .*Nothing was changed/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const row = await on.h.testStore.store.db
      .selectFrom('organizations')
      .select('id')
      .where('id', '=', orgId)
      .executeTakeFirst();
    expect(row).toEqual({ id: orgId });
    expect(await on.rows('clicks', orgId)).toBe(1);
  });
});
