import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrgContext } from '../../src/tenancy/context.js';
import { sqliteKind } from '../helpers/stores.js';
import { as, type Harness, harness, uniqueHandle } from './setup.js';

/** FLAGS_OFF=linkInBio: every bio call answers 403 feature_disabled; the HTML page is a plain 404. */
describe('linkInBio switched off', () => {
  let h: Harness;
  let ctx: OrgContext;
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
    const client = as(h.app, ctx);
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
    const res = await as(h.app, null).get(`/@${handle}`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
  });
});

/** No tier lacks linkInBio today; the gate still names the feature should a plan ever drop it. */
describe('a plan without linkInBio', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(sqliteKind);
  });
  afterAll(async () => h.close());

  it('GET, PUT, blocks and stats are 403 link_in_bio; DELETE has no tier gate', async () => {
    const ctx = await h.org('hero');
    await as(h.app, ctx).put('/api/bio', { handle: uniqueHandle(), title: 'T' });
    ctx.features.linkInBio = false;
    const client = as(h.app, ctx);
    for (const res of [
      await client.get('/api/bio'),
      await client.put('/api/bio', { handle: uniqueHandle(), title: 'T' }),
      await client.put('/api/bio/blocks', []),
      await client.get('/api/bio/stats'),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toBe('link_in_bio');
    }
    expect((await client.delete('/api/bio')).statusCode).toBe(200);
  });
});
