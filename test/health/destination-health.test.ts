import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { nthMailTo, readableBody } from '../helpers/mailbox.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Destination health end to end (issue #33): a real HTTP server on loopback answers 200, then 404, then
 * never, then 200 again; the real checker (HEAD, GET where HEAD is refused, the SSRF guard opened by
 * HEALTH_ALLOW_PRIVATE_TARGETS=1) reads it on the service's own clock, which the test moves by 15 minutes
 * between passes. The link shows its health, lists filter by it, visits re-point to the fallback URL while
 * the destination is down and come back by themselves, and the outbox gets one event each way.
 */

type Mode = 'ok' | 'gone' | 'hang' | 'no-head';
const FALLBACK = 'https://example.com/fallback';
const QUARTER = 15 * 60_000;
const DAY = 24 * 3600_000;

describe('destination health', () => {
  let h: HostedHarness;
  let server: Server;
  let origin: string;
  let key: string;
  let orgId: string;
  let clock = Date.now();
  const modes = new Map<string, Mode>();
  const seen: { path: string; method: string; at: number }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const path = req.url ?? '/';
      seen.push({ path, method: req.method ?? '', at: performance.now() });
      const mode = modes.get(path) ?? 'ok';
      if (mode === 'hang') return; // never answers: the check's 10 s cap ends it
      if (mode === 'gone') return void res.writeHead(404).end('gone');
      if (mode === 'no-head' && req.method === 'HEAD') return void res.writeHead(405).end();
      res.writeHead(200, { 'content-type': 'text/html' }).end('<p>here</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    h = await startHosted(
      sqliteKind,
      { HEALTH_ALLOW_PRIVATE_TARGETS: '1', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' },
      { now: () => clock },
    );
    ({ apiKey: key, orgId } = await h.org('legend'));
    const hook = await h.v1(key, {
      method: 'POST',
      url: '/v1/webhooks',
      payload: { url: 'http://127.0.0.1:9/never', events: ['link.destination_down', 'link.destination_up'] },
    });
    expect(hook.statusCode).toBe(201);
  });
  afterAll(async () => {
    await h?.close();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  const create = async (payload: object) => {
    const response = await h.v1(key, { method: 'POST', url: '/v1/links', payload });
    expect(response.statusCode, response.body).toBe(201);
    return response.json() as { id: string; slug: string; health: { state: string } };
  };
  const health = async (id: string) =>
    (await h.v1(key, { method: 'GET', url: `/v1/links/${id}` })).json().health as {
      state: string;
      lastStatus: number | null;
      since: string | null;
      checkedAt: string | null;
    };
  const check = async (after = QUARTER) => {
    clock += after;
    await h.checkDestinations();
  };
  const visit = async (slug: string) =>
    (
      await h.app.inject({
        method: 'GET',
        url: `/${slug}`,
        headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
      })
    ).headers.location;
  const events = async () =>
    (
      await h.testStore.store.db
        .selectFrom('webhook_deliveries')
        .select(['event', 'payload'])
        .where('org_id', '=', orgId)
        .where('event', 'in', ['link.destination_down', 'link.destination_up'])
        .orderBy('created_at')
        .execute()
    ).map((row) => ({ event: row.event, data: JSON.parse(row.payload) as Record<string, unknown> }));

  it('200, then 404 three times over 30 minutes: down, re-pointed; no answer keeps it down; 200 brings it back', async () => {
    const url = `${origin}/item`;
    const link = await create({ url, fallbackUrl: FALLBACK });
    expect(link.health.state).toBe('unknown');

    await check();
    expect(await health(link.id)).toMatchObject({ state: 'ok', lastStatus: 200 });
    expect(seen.filter((request) => request.path === '/item').map((request) => request.method)).toEqual([
      'HEAD',
    ]);
    expect(await visit(link.slug)).toBe(url);

    modes.set('/item', 'gone');
    // Not busy (no visits recorded yet): an ok destination is checked again a day later.
    await check(QUARTER);
    expect(await health(link.id)).toMatchObject({ state: 'ok', lastStatus: 200 });
    await check(DAY - QUARTER);
    await check();
    // Two failures, 15 minutes apart: not yet down, visits still go to the destination.
    expect(await health(link.id)).toMatchObject({ state: 'ok', lastStatus: 404 });
    expect(await visit(link.slug)).toBe(url);
    await check();
    const down = await health(link.id);
    expect(down).toMatchObject({ state: 'down', lastStatus: 404 });
    expect(await visit(link.slug)).toBe(FALLBACK);
    const listed = await h.v1(key, { method: 'GET', url: '/v1/links?health=down' });
    expect(listed.json().links.map((row: { id: string }) => row.id)).toEqual([link.id]);
    const ok = await h.v1(key, { method: 'GET', url: '/v1/links?health=ok' });
    expect(ok.json().links.map((row: { id: string }) => row.id)).not.toContain(link.id);

    modes.set('/item', 'hang');
    await check();
    expect(await health(link.id)).toMatchObject({ state: 'down', lastStatus: null, since: down.since });
    expect(await visit(link.slug)).toBe(FALLBACK);

    modes.set('/item', 'ok');
    await check();
    expect(await health(link.id)).toMatchObject({ state: 'ok', lastStatus: 200 });
    expect(await visit(link.slug)).toBe(url);

    const queued = await events();
    expect(queued.map((row) => row.event)).toEqual(['link.destination_down', 'link.destination_up']);
    expect(queued[0]?.data).toMatchObject({ id: link.id, fallbackUrl: FALLBACK, health: { state: 'down' } });
    expect(queued[1]?.data).toMatchObject({ id: link.id, health: { state: 'ok', lastStatus: 200 } });

    const history = await h.v1(key, { method: 'GET', url: `/v1/links/${link.id}/health` });
    expect(history.statusCode).toBe(200);
    expect(history.json().checks.map((row: { status: number | null }) => row.status)).toEqual([
      200,
      null,
      404,
      404,
      404,
      200,
    ]);
  }, 60_000);

  it('a link without a fallback keeps going to its destination while it is down', async () => {
    const url = `${origin}/plain-gone`;
    modes.set('/plain-gone', 'gone');
    const link = await create({ url });
    for (let i = 0; i < 3; i++) await check();
    expect((await health(link.id)).state).toBe('down');
    expect(await visit(link.slug)).toBe(url);
  });

  it('asks GET where HEAD is refused, and one host at most once a second', async () => {
    modes.set('/no-head', 'no-head');
    const links = [await create({ url: `${origin}/no-head` }), await create({ url: `${origin}/second` })];
    const from = seen.length;
    await check();
    for (const link of links) expect((await health(link.id)).state).toBe('ok');
    const asked = seen.slice(from).filter((request) => ['/no-head', '/second'].includes(request.path));
    expect(asked.map((request) => `${request.method} ${request.path}`).sort()).toEqual([
      'GET /no-head',
      'HEAD /no-head',
      'HEAD /second',
    ]);
    // HEAD then GET of one check are one second apart at least, as is the next check on that host.
    const times = asked.map((request) => request.at).sort((a, b) => a - b);
    for (let i = 1; i < times.length; i++)
      expect((times[i] as number) - (times[i - 1] as number)).toBeGreaterThanOrEqual(990);
  });

  it('a promoted A/B winner is checked like any destination', async () => {
    const winner = `${origin}/winner`;
    const link = await create({
      url: `${origin}/base`,
      ab: [
        { u: `${origin}/loser`, w: 1 },
        { u: winner, w: 1 },
      ],
    });
    const promoted = await h.v1(key, {
      method: 'POST',
      url: `/v1/links/${link.id}/ab/promote`,
      payload: { variant: 1 },
    });
    expect(promoted.statusCode, promoted.body).toBe(200);
    await check();
    expect(await health(link.id)).toMatchObject({ state: 'ok', lastStatus: 200 });
    expect(seen.some((request) => request.path === '/winner')).toBe(true);
  });

  it('fallbackUrl needs a plan that routes, and is validated like every URL', async () => {
    const bad = await h.v1(key, {
      method: 'POST',
      url: '/v1/links',
      payload: { url: 'https://example.com/x', fallbackUrl: 'javascript:alert(1)' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issues[0].path).toEqual(['fallbackUrl']);
    const sidekick = await h.owner('sidekick');
    const refused = await h.api(sidekick.cookie, {
      method: 'POST',
      url: '/api/links',
      payload: { url: 'https://example.com/s', fallbackUrl: FALLBACK },
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error).toBe('platform_targeting');
    // Health itself is for every plan.
    const plain = await h.api(sidekick.cookie, {
      method: 'POST',
      url: '/api/links',
      payload: { url: 'https://example.com/s' },
    });
    expect(plain.json().health).toEqual({ state: 'unknown', checkedAt: null, since: null, lastStatus: null });
  });
});

describe('the daily digest of links that went down', () => {
  let h: HostedHarness;
  let smtp: SmtpSink;
  let server: Server;
  let origin: string;
  let clock = Date.now();

  beforeAll(async () => {
    server = createServer((req, res) => void res.writeHead(req.url === '/ok' ? 200 : 404).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    smtp = await startSmtp();
    h = await startHosted(
      sqliteKind,
      { HEALTH_ALLOW_PRIVATE_TARGETS: '1', SMTP_URL: smtp.url },
      { now: () => clock },
    );
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });

  it("mails the owner once a day, listing the links whose destination went down, and nothing for the others'", async () => {
    const email = `owner-${Date.now()}@example.com`;
    const owner = await h.session({ email, orgName: 'Digest Co' });
    await h.accounts.setTier(owner.orgId, 'legend');
    const { apiKey } = await h.accounts.mintApiKey(owner.orgId);
    const create = async (url: string, extra: object = {}) =>
      (await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url, ...extra } })).json() as {
        slug: string;
      };
    const gone = await create(`${origin}/gone`, { fallbackUrl: 'https://example.com/instead' });
    await create(`${origin}/ok`);
    for (let i = 0; i < 4; i++) {
      clock += 15 * 60_000;
      await h.checkDestinations();
    }
    const mail = await nthMailTo(smtp, email);
    expect(mail.headers.get('subject')).toBe('A link of yours points at a page that is down');
    const body = readableBody(mail);
    expect(body).toContain(`https://lnk.example/${gone.slug}`);
    expect(body).toContain(`${origin}/gone`);
    expect(body).toContain('https://example.com/instead');
    expect(body).not.toContain(`${origin}/ok`);
    // The dashboard's list of down links (its routes are in the fragment; /links would be a slug).
    expect(body).toContain('https://lnk.example/#/links?health=down');
    // Later passes the same day send nothing more.
    clock += 15 * 60_000;
    await h.checkDestinations();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.messages.filter((message) => message.to.includes(email))).toHaveLength(1);
  }, 30_000);
});
