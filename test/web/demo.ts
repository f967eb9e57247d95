import { randomBytes, randomUUID } from 'node:crypto';
import { DAY_MS } from '../../src/analytics/model.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import type { ClickInput } from '../../src/analytics/write/click-buffer.js';
import type { Link } from '../../src/links/schema.js';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import { addVerifiedDomain } from '../helpers/domains.js';
import type { DashboardServer } from './harness.js';

/**
 * A believable creator workspace for the page tour and the README screenshots: links with powers, 30
 * days of taps with outcomes, a published bio page and media kit, contacts, a broadcast, a webhook, an
 * API key, and a connected Instagram account (the faithful fake provider) with a rule that fired.
 */

export interface Demo {
  email: string;
  password: string;
  orgId: string;
  links: Link[];
  handle: string;
}

/** Environment for a server that can talk to the fake provider. */
export async function fakeProviderEnv(): Promise<{ fake: FakeSocialProvider; env: Record<string, string> }> {
  const fake = await new FakeSocialProvider().start();
  return {
    fake,
    env: {
      SOCIAL_APP_ID: fake.appId,
      SOCIAL_APP_SECRET: fake.appSecret,
      TOKEN_VAULT_KEY: randomBytes(32).toString('base64'),
      SOCIAL_VERIFY_TOKEN: 'demo-verify-token',
      SOCIAL_AUTHORIZE_BASE: fake.origin,
      SOCIAL_OAUTH_BASE: fake.origin,
      SOCIAL_API_BASE: fake.origin,
    },
  };
}

const LINKS = [
  { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', slug: 'new-video', tags: ['launch'], weight: 9 },
  {
    url: 'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT',
    slug: 'single',
    tags: ['music'],
    weight: 7,
  },
  { url: 'https://www.amazon.com/dp/B08N5WRWNW', slug: 'desk-setup', tags: ['affiliate'], weight: 5 },
  {
    url: 'https://www.tiktok.com/@nightowl/video/7234567890123456789',
    slug: 'tour-clip',
    tags: ['launch'],
    weight: 4,
  },
  { url: 'https://www.instagram.com/nightowl.studio/', slug: 'insta', tags: [], weight: 3 },
  { url: 'https://shop.nightowl.example/hoodie', slug: 'hoodie', tags: ['merch'], weight: 2 },
];

const COUNTRIES = ['US', 'US', 'US', 'GB', 'GB', 'DE', 'BR', 'CA', 'FR', 'AU'];
const APPS = ['instagram', 'instagram', 'instagram', 'tiktok', 'tiktok', 'youtube', null];
const REFERRERS = ['instagram.com', 'instagram.com', 'tiktok.com', 'youtube.com', 't.co', null];

export async function seedDemo(server: DashboardServer, fake?: FakeSocialProvider): Promise<Demo> {
  const email = 'maya@nightowl.studio';
  const password = 'correct horse battery';
  const { orgId } = await server.accounts.createOrganization({
    name: 'Night Owl Studio',
    tier: 'legend',
    email,
    password,
  });
  const { apiKey } = await server.accounts.mintApiKey(orgId);
  const v1 = async <T = { id: string }>(method: string, path: string, body?: unknown): Promise<T> => {
    const send = () =>
      fetch(`${server.url}/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    // seedTraffic holds this (the server's) thread for seconds on a loaded machine; the kept-alive socket the
    // next call reuses can be reset by then (ECONNRESET before any answer). Such a call was never served:
    // send it once more on a fresh socket.
    const response = await send().catch((error: unknown) => {
      if ((error as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw error;
      return send();
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  await addVerifiedDomain(server.testStore.store, orgId, 'go.nightowl.studio');
  await v1('POST', '/domains', { hostname: 'links.nightowl.studio' });
  const music = await v1('POST', '/folders', { name: 'Music' });
  await v1('POST', '/folders', { name: 'Merch' });
  const pixel = await v1('POST', '/pixels', { type: 'meta', pixelId: '123456789012345', name: 'Meta ads' });
  const links: Link[] = [];
  for (const spec of LINKS) {
    const extra: Record<string, unknown> = {};
    if (spec.slug === 'new-video') {
      extra.utm = { source: 'instagram', medium: 'bio', campaign: 'fall-drop' };
      extra.pixelIds = [pixel.id];
    }
    if (spec.slug === 'single') {
      extra.folderId = music.id;
      extra.ab = [
        { u: 'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT', w: 1 },
        { u: 'https://music.apple.com/us/album/1440833098', w: 1 },
      ];
    }
    if (spec.slug === 'desk-setup') {
      extra.routing = {
        geo: { GB: 'https://www.amazon.co.uk/dp/B08N5WRWNW', DE: 'https://www.amazon.de/dp/B08N5WRWNW' },
      };
    }
    if (spec.slug === 'hoodie') extra.captureEmails = true;
    links.push(
      await v1<Link>('POST', '/links', { url: spec.url, slug: spec.slug, tags: spec.tags, ...extra }),
    );
  }

  await seedTraffic(server, orgId, links);

  const handle = 'nightowl';
  await v1('PUT', '/bio', {
    handle,
    title: 'Night Owl Studio',
    bio: 'Late-night lo-fi, desk setups and tour diaries. New video every Friday.',
    theme: { bg: '#14102b', ink: '#f4f1ff', accent: '#8b7bff' },
    published: true,
  });
  const byslug = (slug: string) => links.find((link) => link.slug === slug)?.id as string;
  await v1('PUT', '/bio/blocks', [
    { id: randomUUID(), t: 'header', text: 'Watch & listen' },
    {
      id: randomUUID(),
      t: 'link',
      linkId: byslug('new-video'),
      label: 'New video: studio tour',
      note: 'Out now',
    },
    { id: randomUUID(), t: 'link', linkId: byslug('single'), label: 'Stream the new single' },
    { id: randomUUID(), t: 'header', text: 'Shop' },
    { id: randomUUID(), t: 'link', linkId: byslug('desk-setup'), label: 'My desk setup' },
    { id: randomUUID(), t: 'link', linkId: byslug('hoodie'), label: 'Night Owl hoodie' },
    { id: randomUUID(), t: 'text', text: 'Thanks for being here. Turn on notifications for Friday drops!' },
  ]);

  // The dashboard's own API, with a real session.
  const login = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
  const api: Api = async (method, path, body) => {
    const response = await fetch(`${server.url}/api${path}`, {
      method,
      // The dashboard's own origin, as the browser sends it on every call that is not a GET.
      headers: {
        cookie,
        origin: new URL(server.url).origin,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} /api${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Awaited<ReturnType<Api>>;
  };
  await api('PUT', '/media-kit', {
    published: true,
    show: { taps: true, appOpenRate: true, platforms: true, topLinks: true, trend: true },
  });

  for (const [i, who] of ['lena', 'sam.k', 'jordan', 'priya', 'tomasz', 'ana.b'].entries()) {
    await fetch(`${server.url}/api/public/capture`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'cf-ipcountry': COUNTRIES[i] as string },
      body: JSON.stringify({ slug: 'hoodie', email: `${who}@example.com`, consent: true, website: '' }),
    });
  }
  await api('POST', '/segments', { name: 'UK fans', filter: { country: 'GB' } });
  await api('POST', '/broadcasts', {
    subject: 'The hoodie restock is live',
    html: '<p>Hi! The Night Owl hoodie is back in every size.</p>',
  });
  await api('POST', '/keys', { name: 'demo', scopes: ['all'] });
  await v1('POST', '/webhooks', {
    url: 'https://hooks.nightowl.example/linkhop',
    events: ['link.created', 'app.opened'],
  });

  if (fake) await connectInstagram(server, fake, api, byslug('new-video'));
  return { email, password, orgId, links, handle };
}

/** 30 days of human taps with outcomes, written the way the batch writer writes them. */
async function seedTraffic(server: DashboardServer, orgId: string, links: Link[]): Promise<void> {
  const repo = createAnalyticsRepo(server.testStore.store);
  let seed = 7;
  const rand = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)] as T;
  const now = Date.now();
  const clicks: ClickInput[] = [];
  const outcomes: {
    tapId: string;
    link: Link;
    at: number;
    variant: number | null;
    outcome: 'opened' | 'browser' | 'broken';
  }[] = [];
  for (const [index, link] of links.entries()) {
    const weight = LINKS[index]?.weight ?? 1;
    for (let day = 29; day >= 0; day--) {
      const daily = Math.round(weight * (2 + 3 * rand()) * (1 + (29 - day) / 20));
      for (let n = 0; n < daily; n++) {
        const at = now - day * DAY_MS - Math.floor(rand() * 20) * 3_600_000;
        const device = rand() < 0.8 ? (rand() < 0.6 ? 'ios' : 'android') : 'desktop';
        const tapId = device === 'desktop' || !link.platformKey ? null : randomUUID();
        const variant = link.ab ? (rand() < 0.5 ? 0 : 1) : null;
        clicks.push({
          linkId: link.id,
          orgId,
          at,
          bot: false,
          variant,
          routed: null,
          country: pick(COUNTRIES),
          city: null,
          device,
          sourceApp: device === 'desktop' ? null : pick(APPS),
          referrerHost: pick(REFERRERS),
          platformKey: link.platformKey,
          tapId,
        });
        if (tapId && rand() < 0.85) {
          const roll = rand() + (variant === 1 ? 0.08 : 0);
          outcomes.push({
            tapId,
            link,
            at,
            variant,
            outcome: roll < 0.66 ? 'opened' : roll < 0.92 ? 'browser' : 'broken',
          });
        }
      }
    }
  }
  for (let i = 0; i < clicks.length; i += 500) await repo.writeClicks(clicks.slice(i, i + 500));
  for (const o of outcomes) {
    await repo.insertOutcome({
      tapId: o.tapId,
      orgId,
      linkId: o.link.id,
      day: Math.floor(o.at / DAY_MS),
      outcome: o.outcome,
      variant: o.variant,
      platformKey: o.link.platformKey,
      at: o.at,
    });
  }
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ id: string; authUrl?: string | null }>;

/** The creator approves on the (fake) consent page; the rule then fires on a comment. */
async function connectInstagram(server: DashboardServer, fake: FakeSocialProvider, api: Api, linkId: string) {
  const userId = '17841400123456789';
  fake.addAccount(userId, 'nightowl.studio');
  const meta = await api('GET', '/social/meta');
  fake.consentUserId = userId;
  const consent = await fetch(meta.authUrl as string, { redirect: 'manual' });
  fake.consentUserId = null;
  const back = new URL(consent.headers.get('location') ?? '');
  const account = await api('POST', '/social/connect', {
    code: back.searchParams.get('code'),
    state: back.searchParams.get('state'),
  });
  await api('POST', '/social/automations', {
    accountId: account.id,
    linkId,
    dmText: 'Thanks for watching! Here is the studio tour:',
    enabled: true,
    trigger: { type: 'comment', match: { mode: 'any', keywords: ['tour', 'link'] }, mediaId: null },
  });
  for (const [i, text] of ['where is the TOUR link?', 'link please!', 'love this'].entries()) {
    const { payload } = fake.comment({ accountUserId: userId, fromId: `99000000000${i}`, text });
    await fake.deliver(`${server.url}/api/public/social/webhook`, payload);
  }
}
