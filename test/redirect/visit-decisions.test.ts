import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VisitResponse } from '../../src/redirect/respond.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * One visit decision (core/resolve.ts decideVisit), one performer (redirect/visit.ts performVisit), three
 * ways in: the raw fast path in front of Fastify, the Fastify route (app.inject never meets the fast path),
 * and a real HTTP request (the redirect front, then the fast path, then Fastify). Every decision must get
 * the same response whichever way it came in; what the fast path cannot answer without I/O (a slug not
 * cached, a click to count) it leaves to the route.
 */

/** What a response says, with the per-visit values (nonce, tap token) and the transport's headers taken out. */
interface Said {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function normalised(status: number, headers: Record<string, string>, body: string): Said {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (TRANSPORT.has(name.toLowerCase())) continue;
    kept[name.toLowerCase()] = value.replace(/'nonce-[^']+'/g, "'nonce-N'");
  }
  return {
    status,
    headers: kept,
    body: body
      .replace(/nonce="[^"]+"/g, 'nonce="N"')
      .replace(/name="linkhop-tap" content="[^"]+"/g, 'T')
      .replace(/"token":"[^"]+"/g, '"token":"T"'),
  };
}

/** A byte-string body (respond.ts) as the UTF-8 text a client reads. */
const textOf = (response: VisitResponse) => Buffer.from(response.body ?? '', 'latin1').toString('utf8');

describe('every visit decision, through the fast path and the Fastify route', () => {
  let h: HostedHarness;
  let origin: string;
  let key: string;
  const slugs: Record<string, string> = {};

  beforeAll(async () => {
    h = await startHosted(sqliteKind);
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    origin = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    key = (await h.org('legend')).apiKey;
    const links: Record<string, object> = {
      plain: { url: 'https://example.com/plain' },
      app: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      expired: {
        url: 'https://www.youtube.com/watch?v=expired01',
        expiresAt: '2020-01-01T00:00:00Z',
        expiredUrl: 'https://example.com/over',
      },
      locked: { url: 'https://example.com/private', password: 'letmein1' },
      routedIos: { url: 'https://example.com/d', routing: { ios: 'https://ios.example/page' } },
    };
    for (const [name, payload] of Object.entries(links)) {
      const response = await h.v1(key, { method: 'POST', url: '/v1/links', payload });
      expect(response.statusCode, name).toBe(201);
      slugs[name] = response.json().slug;
    }
  });
  afterAll(async () => h?.close());

  const routed = async (url: string, headers: Record<string, string>): Promise<Said> => {
    const reply = await h.app.inject({ method: 'GET', url, headers: { host: 'lnk.example', ...headers } });
    return normalised(reply.statusCode, reply.headers as Record<string, string>, reply.body);
  };
  const fast = (url: string, headers: Record<string, string>): VisitResponse | null =>
    h.fastPath({ method: 'GET', url, headers: { host: 'lnk.example', ...headers } });
  const overHttp = async (url: string, headers: Record<string, string>): Promise<Said> => {
    const response = await fetch(`${origin}${url}`, { redirect: 'manual', headers });
    const body = await response.text();
    return normalised(response.status, Object.fromEntries(response.headers), body);
  };

  const cookieFor = async (slug: string) => {
    const reply = await h.app.inject({
      method: 'POST',
      url: `/${slug}`,
      headers: { host: 'lnk.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'password=letmein1',
    });
    expect(reply.statusCode).toBe(303);
    return String(reply.headers['set-cookie']).split(';')[0] as string;
  };

  /** Each decision the performer acts on: the request, and what the response must be. */
  const DECISIONS: {
    decision: string;
    path: () => string | Promise<string>;
    headers?: () => Record<string, string> | Promise<Record<string, string>>;
    status: number;
    /** The Location, or a text the page must contain. */
    expect: { location: string } | { contains: string };
    /** The fast path leaves it to the route (a slug not cached). */
    routeOnly?: true;
  }[] = [
    {
      decision: 'redirect (a desktop browser)',
      path: () => `/${slugs.plain}`,
      status: 302,
      expect: { location: 'https://example.com/plain' },
    },
    {
      decision: 'redirect routed by device',
      path: () => `/${slugs.routedIos}`,
      headers: () => ({ 'user-agent': UA.iphoneSafari }),
      status: 302,
      expect: { location: 'https://ios.example/page' },
    },
    {
      decision: 'escape page (a phone in an in-app browser, an app destination)',
      path: () => `/${slugs.app}`,
      headers: () => ({ 'user-agent': UA.instagramAndroid }),
      status: 200,
      expect: { contains: 'intent://www.youtube.com/watch?v=dQw4w9WgXcQ#Intent;' },
    },
    {
      decision: 'redirect for a bot, even to an app destination',
      path: () => `/${slugs.app}`,
      headers: () => ({ 'user-agent': UA.googlebotSmartphone }),
      status: 302,
      expect: { location: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
    },
    {
      decision: 'redirect for a prefetch, even from an in-app browser',
      path: () => `/${slugs.app}`,
      headers: () => ({ 'user-agent': UA.instagramAndroid, 'sec-purpose': 'prefetch' }),
      status: 302,
      expect: { location: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
    },
    {
      decision: 'expired: re-pointed, no escape page even in an in-app browser',
      path: () => `/${slugs.expired}`,
      headers: () => ({ 'user-agent': UA.instagramAndroid }),
      status: 302,
      expect: { location: 'https://example.com/over' },
    },
    {
      decision: 'password: the form',
      path: () => `/${slugs.locked}`,
      status: 200,
      expect: { contains: '<form method="post"' },
    },
    {
      decision: 'password: unlocked by its cookie',
      path: () => `/${slugs.locked}`,
      headers: async () => ({ cookie: await cookieFor(slugs.locked as string) }),
      status: 302,
      expect: { location: 'https://example.com/private' },
    },
    {
      decision: 'rich fallback page',
      path: () => `/_fallback/${slugs.app}`,
      status: 200,
      expect: { contains: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      routeOnly: true,
    },
    {
      decision: 'not found',
      path: () => '/no-such-link-here',
      status: 404,
      expect: { contains: "This link doesn't exist" },
      routeOnly: true,
    },
  ];

  for (const row of DECISIONS) {
    it(row.decision, async () => {
      const path = await row.path();
      const headers = { 'user-agent': UA.desktopChrome, ...((await row.headers?.()) ?? {}) };
      // The route first: it loads the link into the cache the fast path reads.
      const viaRoute = await routed(path, headers);
      expect(viaRoute.status).toBe(row.status);
      if ('location' in row.expect) expect(viaRoute.headers.location).toBe(row.expect.location);
      else expect(viaRoute.body).toContain(row.expect.contains);

      const answer = fast(path, headers);
      if (row.routeOnly) expect(answer).toBeNull();
      else {
        expect(answer, 'the fast path answers a cached link itself').not.toBeNull();
        const response = answer as VisitResponse;
        const body = textOf(response);
        if (response.body !== undefined)
          expect(response.headers['content-length']).toBe(String(Buffer.byteLength(body)));
        // HSTS is the server's, added around the fast path's answer (compared over HTTP below).
        const { 'strict-transport-security': _hsts, ...routeHeaders } = viaRoute.headers;
        expect(normalised(response.status, response.headers, body)).toEqual({
          ...viaRoute,
          headers: routeHeaders,
        });
      }
      expect(await overHttp(path, headers)).toEqual(viaRoute);
    });
  }

  it('click limit: the fast path leaves a click to count to the route, and both ways count alike', async () => {
    const limited = async () =>
      (
        await h.v1(key, {
          method: 'POST',
          url: '/v1/links',
          payload: {
            url: 'https://example.com/drop',
            maxClicks: 2,
            expiredUrl: 'https://example.com/sold-out',
          },
        })
      ).json().slug as string;
    const [one, two] = [await limited(), await limited()];
    const person = { 'user-agent': UA.desktopChrome };
    // A bot is served without counting, and fills the cache.
    const bot = { 'user-agent': UA.googlebotSmartphone };
    expect((await routed(`/${one}`, bot)).headers.location).toBe('https://example.com/drop');
    expect(fast(`/${one}`, bot)?.headers.location).toBe('https://example.com/drop');
    expect(fast(`/${one}`, person), 'a person on a limited link is counted first, by the route').toBeNull();
    const viaRoute: (string | undefined)[] = [];
    const viaHttp: (string | undefined)[] = [];
    for (let i = 0; i < 4; i++) {
      viaRoute.push((await routed(`/${one}`, person)).headers.location);
      viaHttp.push((await overHttp(`/${two}`, person)).headers.location);
    }
    const expected = [
      'https://example.com/drop',
      'https://example.com/drop',
      'https://example.com/sold-out',
      'https://example.com/sold-out',
    ];
    expect(viaRoute).toEqual(expected);
    expect(viaHttp).toEqual(expected);
  });
});
