import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { sqliteKind } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/** /health, /health/live and /metrics on a running hosted service (real HTTP, so the fast path counts). */
describe('health and metrics routes', () => {
  let h: HostedHarness;
  let origin: string;
  let apiKey: string;
  beforeAll(async () => {
    h = await startHosted(sqliteKind);
    origin = await h.app.listen({ port: 0, host: '127.0.0.1' });
    apiKey = (await h.org('legend')).apiKey;
  });
  afterAll(async () => h?.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${origin}${path}`, {
      redirect: 'manual',
      headers: { 'user-agent': UA.desktopChrome, ...headers },
    });

  it('answers the plain {ok: true} and liveness', async () => {
    const health = await get('/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ ok: true });
    const live = await get('/health/live');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ live: true });
  });

  it('counts redirects answered by the fast path and by Fastify, and API calls, by route and status', async () => {
    const link = (
      await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com/m' } })
    ).json();
    // The first visit fills the cache through Fastify; the next two take the fast path.
    for (let i = 0; i < 3; i++) expect((await get(`/${link.slug}`)).status).toBe(302);
    expect((await get('/v1/links', { authorization: `Bearer ${apiKey}` })).status).toBe(200);
    const metrics = await get('/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(/^linkhop_http_requests_total\{route="\/:slug",status="302"\} 3$/m);
    expect(text).toMatch(/^linkhop_http_requests_total\{route="\/v1\/links",status="200"\} 1$/m);
    expect(text).toMatch(/^linkhop_redirect_duration_seconds_count 3$/m);
    expect(text).toMatch(/^linkhop_database_up 1$/m);
    expect(text).toMatch(/^linkhop_webhook_outbox_depth 0$/m);
    expect(text).toMatch(/^linkhop_click_buffer_depth \d+$/m);
  });

  it('refuses the slug metrics for new links, and a link that took it before keeps redirecting there', async () => {
    const refused = await h.v1(apiKey, {
      method: 'POST',
      url: '/v1/links',
      payload: { url: 'https://example.com/x', slug: 'metrics' },
    });
    expect(refused.statusCode).toBe(400);
    // A link published under `metrics` before the word was reserved: its slug is moved onto an existing row.
    const older = (
      await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url: 'https://example.com/older' } })
    ).json();
    await sql`update links set slug = 'metrics' where id = ${older.id}`.execute(h.testStore.store.db);
    const visit = await get('/metrics');
    expect(visit.status).toBe(302);
    expect(visit.headers.get('location')).toBe('https://example.com/older');
  });
});
