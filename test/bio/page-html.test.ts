import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBioPage } from '../../src/bio/page-html.js';
import type { PublicBio } from '../../src/bio/schema.js';
import { sqliteKind } from '../helpers/stores.js';
import { as, BASE_URL, type Harness, harness, uniqueHandle } from './setup.js';

const EVIL = `"><script>alert(1)</script><img src=x onerror=alert(2)>'\``;

const page = (over: Partial<PublicBio> = {}): PublicBio => ({
  handle: 'ada',
  title: 'Ada Lovelace',
  bio: 'Poet of science',
  avatarUrl: 'https://cdn.example/ada.png',
  theme: null,
  updatedAt: '2026-01-01T00:00:00.000Z',
  blocks: [
    { t: 'header', id: 'h', text: 'Latest' },
    { t: 'link', id: 'l', label: 'New video', note: 'out now', url: 'https://lnk.example/abc1234' },
    { t: 'text', id: 't', text: 'Thanks' },
    { t: 'social', id: 's', items: [{ key: 'instagram', url: 'https://lnk.example/ig12345' }] },
  ],
  ...over,
});

const render = (p: PublicBio) =>
  renderBioPage({ page: p, nonce: 'N0NCE', url: `${BASE_URL}/@${p.handle}`, branded: true });

describe('bio page renderer', () => {
  it('renders every block, links at the service URLs, no script at all', () => {
    const html = render(page());
    expect(html).toContain('href="https://lnk.example/abc1234"');
    expect(html).toContain('href="https://lnk.example/ig12345"');
    expect(html).toContain('<h2>Latest</h2>');
    expect(html).toContain('New video<small>out now</small>');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/style="/);
    expect(html).toContain('<style nonce="N0NCE">');
  });

  it('carries Open Graph tags and a canonical address', () => {
    const html = render(page());
    expect(html).toContain('<meta property="og:title" content="Ada Lovelace (@ada)">');
    expect(html).toContain('<meta property="og:description" content="Poet of science">');
    expect(html).toContain('<meta property="og:url" content="https://lnk.example/@ada">');
    expect(html).toContain('<meta property="og:image" content="https://cdn.example/ada.png">');
    expect(html).toContain('<meta property="og:type" content="profile">');
    expect(html).toContain('<link rel="canonical" href="https://lnk.example/@ada">');
    expect(html).toContain('name="viewport"');
  });

  it('escapes every value it interpolates', () => {
    const html = render(
      page({
        title: EVIL,
        bio: EVIL,
        avatarUrl: 'javascript:alert(1)',
        blocks: [
          { t: 'header', id: 'h', text: EVIL },
          { t: 'link', id: 'l', label: EVIL, note: EVIL, url: 'javascript:alert(1)' },
          { t: 'text', id: 't', text: EVIL },
          { t: 'social', id: 's', items: [{ key: EVIL, url: 'https://x.example/"onmouseover="x' }] },
        ],
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('"onmouseover="');
    expect(html).toContain('&lt;script&gt;');
  });

  it('uses theme colours as CSS variables and never lets a bad stored colour into the style', () => {
    const themed = render(page({ theme: { bg: '#101014', ink: 'white', accent: 'rgb(255, 0, 128)' } }));
    expect(themed).toContain(':root{--bg:#101014;--ink:white;--ac:rgb(255, 0, 128)}');
    const tampered = render(
      page({ theme: { bg: 'red}</style><script>x()</script>', ink: '#fff', accent: '#000' } }),
    );
    expect(tampered).not.toContain('</style><script>');
    expect(tampered).toContain('--bg:#f6f4ef');
  });

  it('stays under 30 KB with a full page of blocks', () => {
    const blocks = Array.from({ length: 40 }, (_, i) => ({
      t: 'link' as const,
      id: `b${i}`,
      label: `My link number ${i} with a longish label`,
      note: 'A short note under it',
      url: `https://lnk.example/slug${i}`,
    }));
    expect(Buffer.byteLength(render(page({ blocks })))).toBeLessThan(30 * 1024);
  });
});

describe('GET /@handle', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(sqliteKind);
  });
  afterAll(async () => h.close());

  it('serves the published page with a nonce CSP and no script; sidekick pages carry the linkhop mark', async () => {
    const ctx = await h.org('sidekick');
    const handle = uniqueHandle('Html');
    await as(h, ctx).put('/api/bio', { handle, title: 'Html <b>', published: true });
    const link = await h.link(ctx);
    await as(h, ctx).put('/api/bio/blocks', [{ t: 'link', id: 'a', linkId: link.id, label: 'Go' }]);
    const res = await as(h, null).get(`/@${handle.toUpperCase()}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    const nonce = /nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(res.body).toContain(`<style nonce="${nonce}">`);
    expect(res.body).toContain(`href="${link.shortUrl}"`);
    expect(res.body).not.toContain(link.destination);
    expect(res.body).toContain('Html &lt;b&gt;');
    expect(res.body).toContain('linkhop</a>');
    expect(Buffer.byteLength(res.body)).toBeLessThan(30 * 1024);
  });

  it('hero pages carry no mark; the route does not swallow /@handle/other paths', async () => {
    const ctx = await h.org('hero');
    const handle = uniqueHandle();
    await as(h, ctx).put('/api/bio', { handle, title: 'Hero', published: true });
    const res = await as(h, null).get(`/@${handle}`);
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('Made with');
    expect((await as(h, null).get(`/@${handle}/nothing`)).statusCode).toBe(404);
  });
});
