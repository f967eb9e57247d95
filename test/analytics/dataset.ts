import type { ClickInput } from '../../src/analytics/write/click-buffer.js';
import type { Link } from '../../src/links/schema.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { DAY, type Harness, NOW, TODAY } from './setup.js';

/**
 * A small data set with answers worked out by hand. Times are relative to NOW (2025-03-15 12:00Z):
 *
 * | click | link  | when          | variant | country | device  | app       | referrer        | platform | tap | outcome |
 * |-------|-------|---------------|---------|---------|---------|-----------|-----------------|----------|-----|---------|
 * | c1    | alpha | today 10:00   | 0       | US      | ios     | instagram | instagram.com   | youtube  | t1  | opened (then a replayed "browser") |
 * | c2    | alpha | today 11:30   | 1       | US      | android |           |                 | youtube  | t2  | broken  |
 * | c3    | alpha | -1 d 10:15    | 1       | DE/Berlin | desktop |         | t.co            | youtube  |     | (redirect) |
 * | c4    | alpha | -40 d 09:00   | 0       | FR      | ios     | tiktok    |                 | youtube  | t4  | opened  |
 * | c5    | alpha | -100 d        | 0       | US      | ios     |           |                 | youtube  |     | outside 90 days |
 * | b1    | alpha | today 10:05   | bot     |         |         |           |                 |          |     | never counted |
 * | c6    | beta  | -10 d 23:59   |         | (none)  | android | facebook  | m.facebook.com  | spotify  | t6  | browser |
 * | c7    | beta  | today 00:00   |         | GB      | ios     | instagram | =cmd\|' /C calc'!A0 host | spotify | t7 | (unknown) |
 * | c8    | gamma | -1 d 14:00    |         | US      | desktop |           |                 |          |     | (redirect) |
 * | x1    | other org's link, today      |
 *
 * alpha: folder F, tag promo, ab [1, 3]; beta: tag promo; gamma: folder F.
 */
export interface Dataset {
  org: OrgContext;
  other: OrgContext;
  alpha: Link;
  beta: Link;
  gamma: Link;
  foreign: Link;
  folderId: string;
  tokens: Record<'t1' | 't2' | 't4' | 't6' | 't7', string>;
}

const at = (daysAgo: number, hh: number, mm = 0) => TODAY - daysAgo * DAY + hh * 3_600_000 + mm * 60_000;

/** Seeds the table for `org`, with `other`'s one click, through `h`'s write path. */
export async function seed(h: Harness, owners: { org: OrgContext; other: OrgContext }): Promise<Dataset> {
  const { org, other } = owners;
  const folderId = crypto.randomUUID();
  await h.store.db
    .insertInto('folders')
    .values({ id: folderId, org_id: org.orgId, name: 'F', created_at: new Date(NOW).toISOString() })
    .execute();
  const alpha = await h.links.create(org, {
    url: 'https://www.youtube.com/watch?v=abc',
    slug: 'alpha',
    folderId,
    tags: ['promo'],
    ab: [
      { u: 'https://www.youtube.com/watch?v=v0', w: 1 },
      { u: 'https://www.youtube.com/watch?v=v1', w: 3 },
    ],
  });
  const beta = await h.links.create(org, {
    url: 'https://open.spotify.com/track/1',
    slug: 'beta',
    tags: ['promo'],
  });
  const gamma = await h.links.create(org, { url: 'https://example.com/g', slug: 'gamma', folderId });
  const foreign = await h.links.create(other, { url: 'https://example.com/x', slug: 'xeno' });

  const base = { bot: false, variant: null, routed: null, city: null, sourceApp: null, referrerHost: null };
  const click = (link: Link, owner: OrgContext, over: Partial<ClickInput>): ClickInput => ({
    ...base,
    linkId: link.id,
    orgId: owner.orgId,
    at: NOW,
    country: null,
    device: 'other',
    platformKey: null,
    tapId: null,
    ...over,
  });
  const yt = { platformKey: 'youtube', routed: 'https://www.youtube.com/watch?v=v0' };
  const clicks: ClickInput[] = [
    click(alpha, org, {
      ...yt,
      at: at(0, 10),
      variant: 0,
      country: 'US',
      device: 'ios',
      sourceApp: 'instagram',
      referrerHost: 'instagram.com',
      tapId: 't1',
    }),
    click(alpha, org, {
      ...yt,
      at: at(0, 11, 30),
      variant: 1,
      country: 'US',
      device: 'android',
      tapId: 't2',
    }),
    click(alpha, org, {
      ...yt,
      at: at(1, 10, 15),
      variant: 1,
      country: 'DE',
      city: 'Berlin',
      device: 'desktop',
      referrerHost: 't.co',
    }),
    click(alpha, org, {
      ...yt,
      at: at(40, 9),
      variant: 0,
      country: 'FR',
      device: 'ios',
      sourceApp: 'tiktok',
      tapId: 't4',
    }),
    click(alpha, org, { ...yt, at: at(100, 9), variant: 0, country: 'US', device: 'ios' }),
    click(alpha, org, { at: at(0, 10, 5), bot: true }),
    click(beta, org, {
      at: at(10, 23, 59),
      device: 'android',
      sourceApp: 'facebook',
      referrerHost: 'm.facebook.com',
      platformKey: 'spotify',
      tapId: 't6',
    }),
    click(beta, org, {
      at: at(0, 0),
      country: 'GB',
      device: 'ios',
      sourceApp: 'instagram',
      referrerHost: "=cmd|' /C calc'!A0",
      platformKey: 'spotify',
      tapId: 't7',
    }),
    click(gamma, org, { at: at(1, 14), country: 'US', device: 'desktop' }),
    click(foreign, other, { at: at(0, 9), country: 'US', device: 'ios' }),
  ];
  for (const c of clicks) h.buffer.record(c);
  await h.buffer.flush();

  const issue = (
    tapId: string,
    link: Link,
    when: number,
    variant: number | null,
    extra: Partial<ClickInput> = {},
  ) =>
    h.tapTokens.issue({
      tapId,
      linkId: link.id,
      orgId: org.orgId,
      slug: link.slug,
      shortHost: 'lnk.example',
      platformKey: link.platformKey,
      sourceApp: extra.sourceApp ?? null,
      country: extra.country ?? null,
      city: extra.city ?? null,
      device: extra.device ?? null,
      ts: new Date(when).toISOString(),
      variant,
    });
  const tokens = {
    t1: issue('t1', alpha, at(0, 10), 0, { sourceApp: 'instagram', country: 'US', device: 'ios' }),
    t2: issue('t2', alpha, at(0, 11, 30), 1, { country: 'US', device: 'android' }),
    t4: issue('t4', alpha, at(40, 9), 0, { country: 'FR', device: 'ios', sourceApp: 'tiktok' }),
    t6: issue('t6', beta, at(10, 23, 59), null, { device: 'android', sourceApp: 'facebook' }),
    t7: issue('t7', beta, at(0, 0), null, { country: 'GB', device: 'ios' }),
  };
  return { org, other, alpha, beta, gamma, foreign, folderId, tokens };
}

/** Records the outcomes of the table (t7 never reports) and one replay that must not count. */
export async function reportOutcomes(h: Harness, d: Dataset): Promise<boolean[]> {
  return [
    await h.analytics.recordOutcome(d.tokens.t1, 'opened'),
    await h.analytics.recordOutcome(d.tokens.t2, 'broken'),
    await h.analytics.recordOutcome(d.tokens.t4, 'opened'),
    await h.analytics.recordOutcome(d.tokens.t6, 'browser'),
    await h.analytics.recordOutcome(d.tokens.t1, 'browser'),
  ];
}
