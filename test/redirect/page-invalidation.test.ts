import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Escape pages are compiled once per destination, cell and strategy and kept with the compiled link
 * (src/redirect/respond.ts): an edit that reloads the link must drop them, or phones would keep getting
 * the old destination's page while desktops already follow the new one.
 */
describe('a compiled escape page goes with its link', () => {
  let hosted: HostedHarness;
  let apiKey: string;
  beforeAll(async () => {
    hosted = await startHosted(sqliteKind);
    ({ apiKey } = await hosted.org('legend'));
  });
  afterAll(async () => {
    await hosted?.close();
  });

  const visit = (userAgent: string) =>
    hosted.app.inject({
      method: 'GET',
      url: '/pagecache',
      headers: { host: 'lnk.example', 'user-agent': userAgent },
    });

  it('serves the new destination in the page after the link is edited', async () => {
    const created = await hosted.v1(apiKey, {
      method: 'POST',
      url: '/v1/links',
      payload: { url: 'https://www.youtube.com/watch?v=first000001', slug: 'pagecache' },
    });
    expect(created.statusCode).toBe(201);
    const before = [await visit(UA.instagramAndroid), await visit(UA.instagramAndroid)];
    for (const page of before) {
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('watch?v=first000001');
    }
    const edited = await hosted.v1(apiKey, {
      method: 'PATCH',
      url: `/v1/links/${created.json().id}`,
      payload: { url: 'https://www.youtube.com/watch?v=second00002' },
    });
    expect(edited.statusCode).toBe(200);
    const after = await visit(UA.instagramAndroid);
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('watch?v=second00002');
    expect(after.body).not.toContain('first000001');
    expect(after.headers['content-length']).toBe(String(Buffer.byteLength(after.body)));
    expect((await visit(UA.desktopChrome)).headers.location).toBe(
      'https://www.youtube.com/watch?v=second00002',
    );
  });
});
