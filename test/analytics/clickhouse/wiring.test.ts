import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLiveClickhouse } from '../../../src/analytics/clickhouse/live.js';
import { createClickPartitions } from '../../../src/analytics/write/click-partitions.js';
import { createClickRetention } from '../../../src/analytics/write/click-retention.js';
import { visitedSinceIn } from '../../../src/health/repo.js';
import { clickhouseKind, startClickhouse, type TestClickhouse } from '../../helpers/clickhouse.js';
import { eventually } from '../../helpers/eventually.js';
import { type HostedHarness, startHosted } from '../../helpers/hosted.js';
import { sqliteKind } from '../../helpers/stores.js';
import { UA } from '../../helpers/user-agents.js';
import { clickInput } from '../setup.js';
import { type HostedOnClickhouse, startHostedOnClickhouse } from './hosted.js';

const DAY = 86_400_000;

/**
 * ANALYTICS_URL through the composed service (issue #35): visits and outcome beacons land in ClickHouse and
 * GET /v1/analytics answers from there what the same traffic answers on the main database; deleting an
 * account deletes the organization's rows there; retention drops an old month of raw clicks whole.
 */
describe.skipIf(clickhouseKind.skipReason !== null)('the hosted service with ANALYTICS_URL', () => {
  let ch: TestClickhouse;
  let on: HostedOnClickhouse;
  let plain: HostedHarness;

  beforeAll(async () => {
    ch = await startClickhouse();
    on = await startHostedOnClickhouse(ch);
    plain = await startHosted(sqliteKind);
  }, 60_000);
  afterAll(async () => {
    await on?.close();
    await plain?.close();
    await ch?.stop();
  });

  /** The same traffic on an organization of `h`: what the API then answers, ids and times taken out. */
  async function traffic(h: HostedHarness, apiKey: string) {
    const link = (
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      })
    ).json();
    const visit = (userAgent: string, country: string) =>
      h.app.inject({
        method: 'GET',
        url: `/${link.slug}`,
        headers: { host: 'lnk.example', 'user-agent': userAgent, 'cf-ipcountry': country },
      });
    const statuses: number[] = [];
    for (const country of ['FR', 'FR', 'DE'])
      statuses.push((await visit(UA.desktopChrome, country)).statusCode);
    statuses.push((await visit(UA.iphoneSafari, 'US')).statusCode);
    await visit(UA.facebookPreview, 'US');
    const page = await visit(UA.instagramAndroid, 'GB');
    const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(page.body)?.[1];
    const beacon = await h.app.inject({
      method: 'POST',
      url: '/api/public/tap',
      headers: { 'content-type': 'text/plain' },
      payload: JSON.stringify({ token, outcome: 'opened' }),
    });
    const stats = await eventually(
      async () => (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/stats` })).json(),
      (value) => value.total === 5 && value.outcomes.opened === 1,
    );
    // Waited for too: one INSERT fills its views one after the other, so a read between two of them sees
    // the per-link rollups (the stats) before the organization's.
    const analytics = await eventually(
      async () => (await h.v1(apiKey, { method: 'GET', url: '/v1/analytics?days=7' })).json(),
      (value) => value.total === 5 && value.outcomes.opened === 1,
    );
    const clicks = (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${link.id}/clicks` })).json();
    const withoutIds = JSON.parse(
      JSON.stringify({ stats, analytics, clicks }).replaceAll(link.id, 'LINK').replaceAll(link.slug, 'SLUG'),
    );
    for (const click of withoutIds.clicks.clicks) {
      click.id = typeof click.id;
      click.at = typeof click.at;
    }
    return { statuses, beacon: beacon.statusCode, answers: withoutIds, link };
  }

  it('records visits and outcomes in ClickHouse and answers the API as the main database does', async () => {
    const owner = await on.h.owner('legend');
    const seen = await traffic(on.h, owner.apiKey);
    const expected = await traffic(plain, (await plain.owner('legend')).apiKey);
    // Desktop visits redirect; the iPhone's gets the app-opening page, on both stores alike.
    expect(seen.statuses.slice(0, 3)).toEqual([302, 302, 302]);
    expect(seen.statuses).toEqual(expected.statuses);
    expect(seen.beacon).toBe(204);
    expect(seen.answers.stats).toMatchObject({ total: 5, outcomes: { opened: 1 } });
    expect(seen.answers).toEqual(expected.answers);
    // Where they are: the raw clicks (the preview's too, flagged a bot) and the outcome in ClickHouse.
    expect(await on.rows('clicks', owner.orgId)).toBe(6);
    expect(await on.rows('outcomes', owner.orgId)).toBe(1);
    expect(await on.health()).toEqual({ status: 200, body: { ok: true, analytics: 'up' } });
    expect(await on.gauge('linkhop_analytics_up')).toBe(1);
    expect(await plain.app.inject({ method: 'GET', url: '/health' }).then((r) => r.json())).toEqual({
      ok: true,
    });
  });

  it('deleting the account deletes the organization’s rows in ClickHouse, and no one else’s', async () => {
    const doomed = await on.h.owner('legend', 'Doomed');
    const other = await on.h.owner('legend', 'Other');
    await traffic(on.h, doomed.apiKey);
    await traffic(on.h, other.apiKey);
    for (const table of ['clicks', 'link_rollups', 'org_rollups', 'outcomes'])
      expect(await on.rows(table, doomed.orgId)).toBeGreaterThan(0);
    const deleted = await on.h.api(doomed.cookie, {
      method: 'POST',
      url: '/api/account/delete',
      payload: { currentPassword: 'password1' },
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    // ALTER TABLE ... DELETE is a mutation the server runs in the background.
    const left = await eventually(
      async () => {
        let sum = 0;
        for (const table of ['clicks', 'link_rollups', 'org_rollups', 'outcomes'])
          sum += await on.rows(table, doomed.orgId);
        return sum;
      },
      (n) => n === 0,
    );
    expect(left).toBe(0);
    expect(await on.rows('clicks', other.orgId)).toBe(6);
    expect(await on.rows('outcomes', other.orgId)).toBe(1);
  });

  it('retention drops the raw clicks of a month past CLICK_RETENTION_DAYS and keeps every count', async () => {
    const owner = await on.h.owner('legend', 'Retained');
    const { link } = await traffic(on.h, owner.apiKey);
    const now = Date.now();
    const live = openLiveClickhouse(on.url, on.h.testStore.store);
    try {
      // A click of 400 days ago, written as the writer writes it (its own month's partition).
      const old = now - 400 * DAY;
      await live.store.writeClicks([clickInput({ orgId: owner.orgId, linkId: link.id, at: old })], 'b-old');
      expect(await on.rows('clicks', owner.orgId)).toBe(7);
      const month = new Date(old).toISOString().slice(0, 7).replace('-', '');
      const partitions = async () =>
        (
          await ch.query(
            `SELECT DISTINCT partition FROM system.parts WHERE database = '${on.database}' AND table = 'clicks' AND active`,
          )
        )
          .trim()
          .split('\n');
      expect(await partitions()).toContain(month);
      const rollupsBefore = await on.rows('link_rollups', owner.orgId);
      const retention = createClickRetention({
        partitions: createClickPartitions(on.h.testStore.store),
        store: on.h.testStore.store,
        clickhouse: live,
        retentionDays: 90,
        now: () => now,
        logger: pino({ level: 'silent' }),
      });
      await retention.run();
      expect(await partitions()).not.toContain(month);
      expect(await on.rows('clicks', owner.orgId)).toBe(6);
      // The rollups are kept, as the SQL store keeps them: counts do not change with retention.
      expect(await on.rows('link_rollups', owner.orgId)).toBe(rollupsBefore);
    } finally {
      await live.close();
    }
  });

  it('destination health asks ClickHouse whether a link was visited, and counts it visited while it is away', async () => {
    const owner = await on.h.owner('legend', 'Visited');
    const { link } = await traffic(on.h, owner.apiKey);
    const quiet = (
      await on.h.v1(owner.apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/q' },
      })
    ).json();
    const today = Math.floor(Date.now() / DAY);
    const main = on.h.testStore.store;
    const live = openLiveClickhouse(on.url, main);
    // Nothing listens on port 9: refused at once.
    const away = openLiveClickhouse(on.url.replace(`:${ch.port}/`, ':9/'), main);
    try {
      const visited = visitedSinceIn(main.db, live.store);
      expect(await visited([link.id], today - 1)).toBe(true);
      expect(await visited([quiet.id], today - 1)).toBe(false);
      expect(await visited([link.id], today + 1)).toBe(false);
      expect(await visitedSinceIn(main.db, away.store)([quiet.id], today - 1)).toBe(true);
    } finally {
      await live.close();
      await away.close();
    }
  });
});
