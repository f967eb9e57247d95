import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bioPageRoutes } from '../../src/bio/routes.js';
import { mediaKitPageRoutes } from '../../src/mediakit/routes.js';
import { as, type Harness, harness, uniqueHandle } from '../bio/setup.js';
import { sqliteKind } from '../helpers/stores.js';

describe('mediaKit switched off', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(sqliteKind, { flagsOff: ['mediaKit'] });
  });
  afterAll(async () => h.close());

  it('every kit call is 403 feature_disabled; the bio page keeps working', async () => {
    const ctx = await h.org('legend');
    const handle = uniqueHandle();
    await as(h, ctx).put('/api/bio', { handle, title: 'T', published: true });
    for (const res of [
      await as(h, ctx).get('/api/media-kit'),
      await as(h, ctx).put('/api/media-kit', { published: true }),
      await as(h, ctx).delete('/api/media-kit'),
      await as(h, null).get(`/api/public/media-kit/${handle}`),
      await as(h, null).get(`/api/public/media-kit/${handle}/card.svg`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('feature_disabled');
    }
    expect((await as(h, null).get(`/@${handle}/media-kit`)).statusCode).toBe(404);
    expect((await as(h, null).get(`/@${handle}`)).statusCode).toBe(200);
  });
});

describe('analytics not connected', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(sqliteKind, { analytics: false });
  });
  afterAll(async () => h.close());

  it('the kit says configured: false and reports nothing; the card is 409 no_data', async () => {
    const ctx = await h.org('hero');
    const handle = uniqueHandle();
    await as(h, ctx).put('/api/bio', { handle, title: 'T', published: true });
    // Clicks and outcomes are in the store all the same: the kit must not read them.
    const link = await h.link(ctx);
    await as(h, ctx).put('/api/bio/blocks', [{ t: 'link', id: 'a', linkId: link.id, label: 'A' }]);
    await h.clicks(ctx, link.id, 5, { platformKey: 'youtube' });
    await h.outcomes(ctx, link.id, { opened: 1, browser: 1 });
    const all = { taps: true, appOpenRate: true, platforms: true, topLinks: true, trend: true };
    await as(h, ctx).put('/api/media-kit', { published: true, show: all });
    const kit = (await as(h, null).get(`/api/public/media-kit/${handle}`)).json();
    expect(kit).toMatchObject({ configured: false, empty: true });
    expect('taps' in kit).toBe(false);
    // No number at all: only the identity fields.
    expect(Object.keys(kit).sort()).toEqual([
      'avatarUrl',
      'bio',
      'configured',
      'empty',
      'handle',
      'sampled',
      'theme',
      'title',
      'updatedAt',
      'window',
    ]);
    expect((await as(h, null).get(`/api/public/media-kit/${handle}/card.svg`)).statusCode).toBe(409);
    const stats = (await as(h, ctx).get('/api/bio/stats')).json();
    expect(stats.configured).toBe(false);
    expect(stats.blocks).toEqual([
      {
        linkId: link.id,
        clicks: 0,
        outcomes: { opened: 0, browser: 0, broken: 0 },
        opened: 0,
        appOpenRate: null,
      },
    ]);
  });
});

describe('route syntax', () => {
  it('/@:handle and /@:handle/media-kit win over a catch-all /:slug and read the handle', async () => {
    const app = Fastify();
    app.get('/:slug', async () => 'slug');
    const seen: string[] = [];
    const fakeBio = {
      flagOff: () => false,
      published: async (handle: string) => {
        seen.push(`bio ${handle}`);
        throw Object.assign(new Error('x'), {});
      },
    };
    const fakeKit = {
      flagOff: () => false,
      publishedKit: async (handle: string) => {
        seen.push(`kit ${handle}`);
        throw new Error('x');
      },
    };
    app.setErrorHandler((_e, _r, reply) => reply.code(418).send('handled'));
    await app.register(bioPageRoutes, {
      bio: fakeBio as never,
      nonce: () => 'n',
      baseUrl: 'https://x.example',
    });
    await app.register(mediaKitPageRoutes, {
      mediaKit: fakeKit as never,
      nonce: () => 'n',
      baseUrl: 'https://x.example',
    });
    expect((await app.inject('/abc')).body).toBe('slug');
    expect((await app.inject('/@ada')).statusCode).toBe(418);
    expect((await app.inject('/@ada.l/media-kit')).statusCode).toBe(418);
    expect(seen).toEqual(['bio ada', 'kit ada.l']);
    await app.close();
  });
});
