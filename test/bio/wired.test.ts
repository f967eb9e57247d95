import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';

/** The bio page and media kit through the composed service, with real analytics behind them. */
describe('creator pages wired into the hosted service', () => {
  let h: HostedHarness;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
  });
  afterAll(async () => h?.close());

  it('a creator builds, publishes and serves a bio page; its blocks point at short links', async () => {
    const { cookie } = await h.session({ email: 'bio@example.com', orgName: 'Bio Org' });
    const json = (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) =>
      h.app.inject({
        method,
        url,
        headers: { cookie, 'content-type': 'application/json' },
        ...(payload ? { payload } : {}),
      });
    const link = (
      await json('POST', '/api/links', { url: 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC' })
    ).json();
    const saved = await json('PUT', '/api/bio', { handle: 'Maya.Makes', title: 'Maya', published: true });
    expect(saved.statusCode).toBe(200);
    const blocks = await json('PUT', '/api/bio/blocks', [
      { t: 'link', id: 'b1', linkId: link.id, label: 'My song' },
    ]);
    expect(blocks.statusCode).toBe(200);

    const page = await h.app.inject({ method: 'GET', url: '/@maya.makes', headers: { host: 'lnk.example' } });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain(link.shortUrl);
    expect(page.body).not.toContain('open.spotify.com');
    const publicJson = await h.app.inject({ method: 'GET', url: '/api/public/bio/maya.makes' });
    expect(publicJson.statusCode).toBe(200);
    expect(JSON.stringify(publicJson.json())).not.toContain(link.id);
    expect((await h.app.inject({ method: 'GET', url: '/@nobody' })).statusCode).toBe(404);

    const stats = await json('GET', '/api/bio/stats');
    expect(stats.statusCode).toBe(200);
    expect(stats.json().upgrade).toEqual(expect.any(String));
  });
});
