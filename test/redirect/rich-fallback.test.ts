import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

describe('the rich fallback page', () => {
  let h: HostedHarness;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
  });
  afterAll(async () => h?.close());

  const get = (url: string, userAgent: string = UA.androidChrome) =>
    h.app.inject({ method: 'GET', url, headers: { host: 'lnk.example', 'user-agent': userAgent } });

  it('with richFallback, Android falls back to our page, which shows the preview and the way on', async () => {
    const { apiKey } = await h.org('legend');
    const link = (
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', utm: { source: 'bio' } },
      })
    ).json();
    await h.v1(apiKey, {
      method: 'PUT',
      url: `/v1/links/${link.id}/og`,
      payload: {
        title: 'My </title><script>alert(1)</script> video',
        description: 'Watch "it" & share',
        image: 'https://cdn.example/c.jpg',
      },
    });
    const escapePage = await get(`/${link.slug}`, UA.instagramAndroid);
    expect(escapePage.statusCode).toBe(200);
    expect(escapePage.body).toContain(
      `S.browser_fallback_url=${encodeURIComponent(`https://lnk.example/_fallback/${link.slug}`)}`,
    );

    const page = await get(`/_fallback/${link.slug}`);
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('My &lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; video');
    expect(page.body).not.toContain('<script>alert(1)');
    expect(page.body).toContain('Watch &quot;it&quot; &amp; share');
    expect(page.body).toContain('src="https://cdn.example/c.jpg"');
    expect(page.body).toContain('href="https://www.youtube.com/watch?v=dQw4w9WgXcQ&amp;utm_source=bio"');
    expect(page.headers['content-security-policy']).toContain('img-src https: data:');
  });

  it('without richFallback the intent falls back to the destination, and the fallback address just redirects', async () => {
    const { apiKey, orgId } = await h.org('legend');
    const link = (
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      })
    ).json();
    await h.accounts.setTier(orgId, 'sidekick');
    const escapePage = await get(`/${link.slug}`, UA.instagramAndroid);
    expect(escapePage.body).toContain(
      `S.browser_fallback_url=${encodeURIComponent('https://www.youtube.com/watch?v=dQw4w9WgXcQ')}`,
    );
    const fallback = await get(`/_fallback/${link.slug}`);
    expect(fallback.statusCode).toBe(302);
    expect(fallback.headers.location).toBe('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
  });

  it('a password-protected link keeps its gate on the fallback address', async () => {
    const { apiKey } = await h.org('legend');
    const link = (
      await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/hidden', password: 'pw-123456' },
      })
    ).json();
    const fallback = await get(`/_fallback/${link.slug}`);
    expect(fallback.statusCode).toBe(200);
    expect(fallback.body).toContain('<form method="post"');
    expect(fallback.body).not.toContain('example.com/hidden');
  });

  it('an unknown slug is the 404 page', async () => {
    expect((await get('/_fallback/nope')).statusCode).toBe(404);
  });
});

describe('the capture form on the rich fallback page', () => {
  it('shows when every condition holds, and a submission lands in the audience list', async () => {
    const { sqliteKind: kind } = await import('../helpers/stores.js');
    const h = await startHosted(kind);
    try {
      const { apiKey } = await h.org('legend');
      const link = (
        await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', captureEmails: true, slug: 'cap1' },
        })
      ).json();
      const page = await h.app.inject({
        method: 'GET',
        url: `/_fallback/${link.slug}`,
        headers: { host: 'lnk.example' },
      });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('id="lh-capture"');
      expect(page.headers['content-security-policy']).toContain("connect-src 'self'");
      const plain = (
        await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
        })
      ).json();
      const without = await h.app.inject({
        method: 'GET',
        url: `/_fallback/${plain.slug}`,
        headers: { host: 'lnk.example' },
      });
      expect(without.body).not.toContain('id="lh-capture"');

      const capture = await h.app.inject({
        method: 'POST',
        url: '/api/public/capture',
        headers: { 'content-type': 'application/json', 'cf-ipcountry': 'DE' },
        payload: { slug: 'cap1', email: 'Fan@Example.com', consent: true, website: '' },
      });
      expect(capture.statusCode).toBe(204);
      const audience = (await h.v1(apiKey, { method: 'GET', url: '/v1/audience' })).json();
      expect(audience.count).toBe(1);
      expect(audience.contacts[0]).toMatchObject({
        email: 'fan@example.com',
        sourceSlug: 'cap1',
        country: 'DE',
      });
    } finally {
      await h.close();
    }
  });
});
