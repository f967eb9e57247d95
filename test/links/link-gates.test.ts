import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { createPlatformTable } from '../../src/core/platforms/index.js';
import { AppError } from '../../src/errors.js';
import { createLinkRepo } from '../../src/links/repo.js';
import { createLinkService, type LinkService } from '../../src/links/service.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';

/** Plan gates, caps and read-only rules, at the service: the same code the dashboard routes will call. */
describe('link powers are gated by plan', () => {
  let testStore: TestStore;
  let links: LinkService;
  let accounts: ReturnType<typeof createAccountService>;
  const events: string[] = [];

  beforeAll(async () => {
    testStore = await sqliteKind.create();
    accounts = createAccountService({
      repo: createAccountRepo(testStore.store),
      now: () => new Date(),
      uuid: randomUUID,
    });
    links = createLinkService({
      repo: createLinkRepo(testStore.store),
      table: createPlatformTable(),
      baseUrl: 'https://lnk.example',
      now: () => new Date(),
      uuid: randomUUID,
      randomBytes: (size) => randomBytes(size),
      invalidate: () => {},
      events: {
        emitIn: async (_trx, _org, event) => {
          events.push(event);
          return 0;
        },
        nudge: () => {},
      },
      reapplyLinkCap: async (ctx) => {
        await accounts.reapplyLinkCap(ctx.orgId, ctx.tier);
      },
    });
  });
  afterAll(async () => testStore.dispose());

  async function context(tier: Tier): Promise<OrgContext> {
    const { orgId } = await accounts.createOrganization({ name: tier, tier });
    return { orgId, tier, features: featuresOf(tier) };
  }

  async function codeOf(promise: Promise<unknown>): Promise<string> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof AppError) return `${error.status} ${error.code}`;
      throw error;
    }
    return 'ok';
  }

  const ab = [
    { u: 'https://a.example', w: 1 },
    { u: 'https://b.example', w: 1 },
  ];

  it.each([
    ['customSlugs', { slug: 'mine' }, '403 custom_slugs'],
    ['abTesting', { ab }, '403 ab_testing'],
    ['scheduledLinks', { sched: [{ from: 1, url: 'https://s.example' }] }, '403 scheduled_links'],
    ['passwordLinks', { password: 'secret' }, '403 password_links'],
    ['platformTargeting', { routing: { ios: 'https://ios.example' } }, '403 platform_targeting'],
    ['geoRouting', { routing: { geo: { DE: 'https://de.example' } } }, '403 geo_routing'],
    ['audienceCapture', { captureEmails: true }, '403 audience_capture'],
    ['folders', { folderId: randomUUID() }, '403 folders'],
    ['pixelInjection', { pixelIds: [randomUUID()] }, '403 pixel_injection'],
  ])('sidekick without %s gets a 403 naming it', async (_feature, powers, expected) => {
    const ctx = await context('sidekick');
    expect(await codeOf(links.create(ctx, { url: 'https://example.com', ...powers }))).toBe(expected);
  });

  it('sidekick links are branded; hero links are not', async () => {
    expect((await links.create(await context('sidekick'), { url: 'https://example.com' })).branded).toBe(
      true,
    );
    expect((await links.create(await context('hero'), { url: 'https://example.com' })).branded).toBe(false);
  });

  it('hero has the link powers', async () => {
    const ctx = await context('hero');
    const link = await links.create(ctx, {
      url: 'https://example.com',
      slug: 'hero-slug',
      sched: [{ from: 1, url: 'https://s.example' }],
    });
    expect(link.slug).toBe('hero-slug');
  });

  it('clearing a power is allowed on any plan', async () => {
    const ctx = await context('sidekick');
    const link = await links.create(ctx, { url: 'https://example.com' });
    expect(
      await codeOf(links.update(ctx, link.id, { ab: null, routing: null, password: null, sched: null })),
    ).toBe('ok');
  });

  it('an unknown folder or pixel is a 400 with the field named', async () => {
    const ctx = await context('hero');
    expect(await codeOf(links.create(ctx, { url: 'https://example.com', folderId: randomUUID() }))).toBe(
      '400 invalid_body',
    );
    expect(await codeOf(links.create(ctx, { url: 'https://example.com', pixelIds: [randomUUID()] }))).toBe(
      '400 invalid_body',
    );
  });

  it('the live link cap holds at create; archiving frees a slot', async () => {
    const ctx = await context('sidekick');
    const created = [];
    for (let i = 0; i < 25; i++) created.push(await links.create(ctx, { url: `https://example.com/${i}` }));
    expect(await codeOf(links.create(ctx, { url: 'https://example.com/26' }))).toBe('403 link_cap_reached');
    await links.archive(ctx, created[0]?.id ?? '');
    expect(await codeOf(links.create(ctx, { url: 'https://example.com/26' }))).toBe('ok');
  });

  it('a downgrade makes links over the cap read-only: editing them is 403 read_only; archiving others unlocks them', async () => {
    const ctx = await context('hero');
    const created = [];
    for (let i = 0; i < 27; i++) created.push(await links.create(ctx, { url: `https://example.com/${i}` }));
    const result = await accounts.setTier(ctx.orgId, 'sidekick');
    expect(result.readOnlyLinks).toBe(2);
    const down: OrgContext = { ...ctx, tier: 'sidekick', features: featuresOf('sidekick') };
    const newest = created[26]?.id ?? '';
    expect((await links.get(down, newest)).readOnly).toBe(true);
    expect(await codeOf(links.update(down, newest, { tags: ['x'] }))).toBe('403 read_only');
    expect((await links.get(down, created[0]?.id ?? '')).readOnly).toBe(false);
    await links.archive(down, created[0]?.id ?? '');
    await links.archive(down, created[1]?.id ?? '');
    expect((await links.get(down, newest)).readOnly).toBe(false);
    expect(await codeOf(links.update(down, newest, { tags: ['x'] }))).toBe('ok');
  });

  it('emits link.created, link.updated and link.archived', async () => {
    events.length = 0;
    const ctx = await context('hero');
    const link = await links.create(ctx, { url: 'https://example.com' });
    await links.update(ctx, link.id, { tags: ['t'] });
    await links.archive(ctx, link.id);
    expect(events).toEqual(['link.created', 'link.updated', 'link.archived']);
  });
});
