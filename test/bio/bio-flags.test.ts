import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBioRepo } from '../../src/bio/repo.js';
import { createBioService } from '../../src/bio/service.js';
import { AppError } from '../../src/errors.js';
import { featuresOf } from '../../src/tenancy/plans.js';
import { sqliteKind } from '../helpers/stores.js';
import { as, type Harness, harness, type Org, uniqueHandle } from './setup.js';

/** FLAGS_OFF=linkInBio: every bio call answers 403 feature_disabled; the HTML page is a plain 404. */
describe('linkInBio switched off', () => {
  let h: Harness;
  let ctx: Org;
  const handle = uniqueHandle();

  beforeAll(async () => {
    h = await harness(sqliteKind, { flagsOff: ['linkInBio'] });
    ctx = await h.org('legend');
  });
  afterAll(async () => h.close());

  it.each([
    ['GET', '/api/bio'],
    ['PUT', '/api/bio'],
    ['DELETE', '/api/bio'],
    ['PUT', '/api/bio/blocks'],
    ['GET', '/api/bio/stats'],
    ['GET', '/v1/bio'],
    ['PUT', '/v1/bio/blocks'],
    ['GET', `/api/public/bio/${handle}`],
  ])('%s %s is 403 feature_disabled', async (method, url) => {
    // /v1 with the Legend organization's API key, /api with its owner's session.
    const client = as(h, ctx);
    const res =
      method === 'GET'
        ? await client.get(url)
        : method === 'DELETE'
          ? await client.delete(url)
          : await client.put(url, url.endsWith('blocks') ? [] : { handle, title: 'T' });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe('feature_disabled');
  });

  it('the HTML page is the not-found page', async () => {
    const res = await as(h, null).get(`/@${handle}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

/**
 * No tier lacks linkInBio today, so no session or API key can carry a context without it; the gate is
 * asserted on the bio service (on the hosted store) with such a context: the error each call answers with,
 * its code and status, as the routes send it.
 */
describe('a plan without linkInBio', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(sqliteKind);
  });
  afterAll(async () => h.close());

  it('GET, PUT, blocks and stats are 403 link_in_bio; DELETE has no tier gate', async () => {
    const owner = await h.org('hero');
    expect((await as(h, owner).put('/api/bio', { handle: uniqueHandle(), title: 'T' })).statusCode).toBe(200);
    const bio = createBioService({
      repo: createBioRepo(h.testStore.store),
      stats: {
        configured: true,
        linkStats: () => Promise.reject(new Error('the gate comes first')),
        orgSummary: () => Promise.reject(new Error('the gate comes first')),
      },
      baseUrl: 'https://lnk.example',
      flagsOff: new Set(),
      now: () => new Date(),
      uuid: randomUUID,
    });
    const ctx = { orgId: owner.orgId, tier: 'hero' as const, features: featuresOf('hero') };
    ctx.features.linkInBio = false;
    for (const call of [
      bio.get(ctx),
      bio.save(ctx, { handle: uniqueHandle(), title: 'T' }),
      bio.replaceBlocks(ctx, []),
      bio.stats(ctx),
    ]) {
      const error = await call.then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ status: 403, code: 'link_in_bio' });
    }
    expect(await bio.remove(ctx)).toEqual({ deleted: true });
    expect((await as(h, owner).get('/api/bio')).json()).toEqual({ page: null });
  });
});
