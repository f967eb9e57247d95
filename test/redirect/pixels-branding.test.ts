import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

describe('pixels and branding on our pages', () => {
  let h: HostedHarness;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
  });
  afterAll(async () => h?.close());

  const visit = (slug: string, userAgent: string) =>
    h.app.inject({
      method: 'GET',
      url: `/${slug}`,
      headers: { host: 'lnk.example', 'user-agent': userAgent },
    });

  async function linkWithPixels(apiKey: string, extra: object = {}) {
    const call = (url: string, payload: object) => h.v1(apiKey, { method: 'POST', url, payload });
    const meta = (
      await call('/v1/pixels', { type: 'meta', pixelId: '123456789012345', name: 'Meta' })
    ).json();
    const gtm = (await call('/v1/pixels', { type: 'gtm', pixelId: 'GTM-AB12CD', name: 'GTM' })).json();
    return (
      await call('/v1/links', {
        url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        pixelIds: [meta.id, gtm.id],
        ...extra,
      })
    ).json();
  }

  it('the escape page loads the link’s pixels, and its CSP lets their loaders in', async () => {
    const { apiKey } = await h.org('legend');
    const link = await linkWithPixels(apiKey);
    const page = await visit(link.slug, UA.instagramAndroid);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('"pixelId":"123456789012345"');
    expect(page.body).toContain('"pixelId":"GTM-AB12CD"');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("'strict-dynamic'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(page.body.match(/<script[^>]*>/g)?.every((tag) => tag.includes(`nonce="${nonce}"`))).toBe(true);
  });

  it('a desktop visitor still gets the redirect at once: pixels never add a page', async () => {
    const { apiKey } = await h.org('legend');
    const link = await linkWithPixels(apiKey);
    expect((await visit(link.slug, UA.desktopChrome)).statusCode).toBe(302);
  });

  it('the password form carries the pixels too', async () => {
    const { apiKey } = await h.org('legend');
    const link = await linkWithPixels(apiKey, { password: 'secret-pw' });
    const form = await visit(link.slug, UA.desktopChrome);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain('<form method="post"');
    expect(form.body).toContain('"pixelId":"GTM-AB12CD"');
  });

  it('after a downgrade below pixelInjection, no pixel loads and the link still redirects', async () => {
    const { apiKey, orgId } = await h.org('legend');
    const link = await linkWithPixels(apiKey);
    await h.accounts.setTier(orgId, 'sidekick');
    const page = await visit(link.slug, UA.instagramAndroid);
    expect(page.statusCode).toBe(200);
    expect(page.body).not.toContain('pixelId');
    expect(String(page.headers['content-security-policy'])).not.toContain('strict-dynamic');
    expect((await visit(link.slug, UA.desktopChrome)).statusCode).toBe(302);
  });

  it('pages of plans without removeBranding carry the linkhop mark; others do not', async () => {
    const spotify = 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC';
    const legend = await h.org('legend');
    const plain = (
      await h.v1(legend.apiKey, { method: 'POST', url: '/v1/links', payload: { url: spotify } })
    ).json();
    expect(plain.branded).toBe(false);
    expect((await visit(plain.slug, UA.instagramIos)).body).not.toContain('id="lh-brand"');

    const downgraded = await h.org('legend');
    const link = (
      await h.v1(downgraded.apiKey, { method: 'POST', url: '/v1/links', payload: { url: spotify } })
    ).json();
    await h.accounts.setTier(downgraded.orgId, 'sidekick');
    const page = await visit(link.slug, UA.instagramIos);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('id="lh-brand"');
    expect((await visit(link.slug, UA.desktopChrome)).statusCode).toBe(302);
  });
});
