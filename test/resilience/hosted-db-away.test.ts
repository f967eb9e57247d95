import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import { createOutcomeQueue } from '../../src/analytics/write/outcome-queue.js';
import { createOutcomeRecorder } from '../../src/analytics/write/outcomes.js';
import { createTapTokens } from '../../src/analytics/write/tap-tokens.js';
import { type Composed, composeHosted } from '../../src/app.js';
import { composeEngine } from '../../src/compose/engine.js';
import { parseConfig } from '../../src/config.js';
import { parseEngineConfig } from '../../src/engine/config.js';
import { openEngineStore } from '../../src/engine/store.js';
import { openStore, type Store } from '../../src/store/database.js';
import { serveEngine } from '../helpers/engine.js';
import { postgresKind, type TestStore } from '../helpers/stores.js';
import { startTcpProxy, type TcpProxy, throughProxy } from '../helpers/tcp-proxy.js';
import { UA } from '../helpers/user-agents.js';

/**
 * The hosted service (and the engine) composed in-process on a PostgreSQL store reached through a TCP
 * proxy, the proxy then cut: links already served keep redirecting, an unknown slug is a 503 page with
 * Retry-After (never 404), the API answers 503 `unavailable` within 2 s, a tap outcome whose insert failed
 * is held and written once when the database is back, and everything recovers without a restart.
 */
describe.skipIf(postgresKind.skipReason !== null)('hosted service with PostgreSQL away', () => {
  let testStore: TestStore;
  let proxy: TcpProxy;
  let store: Store;
  let composed: Composed;
  let app: FastifyInstance;
  let apiKey: string;
  let slug: string;
  const spillDir = mkdtempSync(join(tmpdir(), 'linkhop-spill-hosted-'));

  beforeAll(async () => {
    testStore = await postgresKind.create();
    const direct = new URL(testStore.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    store = openStore(throughProxy(testStore.url, proxy), {
      ...(testStore.schema ? { schema: testStore.schema } : {}),
      maxConnections: 4,
      statementTimeoutMs: 1500,
    });
    const config = parseConfig(
      {
        BASE_URL: 'https://lnk.example',
        SESSION_SECRET: 'test-session-secret-0123456789abcdef',
        SPILL_DIR: spillDir,
      },
      'hosted',
    );
    composed = await composeHosted(config, store, pino({ level: 'silent' }));
    app = composed.app;
    const accounts = createAccountService({
      repo: createAccountRepo(testStore.store),
      now: () => new Date(),
      uuid: randomUUID,
    });
    const { orgId } = await accounts.createOrganization({ name: 'Away', tier: 'legend' });
    apiKey = (await accounts.mintApiKey(orgId)).apiKey;
    const created = await v1('POST', '/v1/links', { url: 'https://example.com/away' });
    slug = created.json().slug;
  });
  afterAll(async () => {
    proxy?.restore();
    await composed?.close();
    await store?.close();
    await proxy?.close();
    await testStore?.dispose();
    rmSync(spillDir, { recursive: true, force: true });
  });

  function v1(method: 'GET' | 'POST', url: string, payload?: object) {
    return app.inject({
      method,
      url,
      headers: { authorization: `Bearer ${apiKey}` },
      ...(payload ? { payload } : {}),
    });
  }
  const visit = (path: string) =>
    app.inject({
      method: 'GET',
      url: path,
      headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
    });

  it('while the database is away: known link 302, unknown slug 503 page, API 503 unavailable within 2 s', async () => {
    expect((await visit(`/${slug}`)).statusCode).toBe(302);
    await proxy.cut();
    try {
      const known = await visit(`/${slug}`);
      expect(known.statusCode).toBe(302);
      expect(known.headers.location).toBe('https://example.com/away');

      // Readiness names the database and says 503; liveness stays 200; metrics still answer, and say so.
      const health = await app.inject({ method: 'GET', url: '/health' });
      expect(health.statusCode).toBe(503);
      expect(health.json()).toMatchObject({ ok: false, status: 'degraded', db: 'down' });
      expect((await app.inject({ method: 'GET', url: '/health/live' })).statusCode).toBe(200);
      const metrics = await visit('/metrics');
      expect(metrics.statusCode).toBe(200);
      expect(metrics.body).toMatch(/^linkhop_database_up 0$/m);

      const unknown = await visit('/never-made');
      expect(unknown.statusCode).toBe(503);
      expect(unknown.headers['retry-after']).toBe('5');
      expect(unknown.headers['content-type']).toMatch(/^text\/html/);
      expect(unknown.body).toContain('briefly unavailable');

      for (const [method, url, payload] of [
        ['GET', '/v1/links', undefined],
        ['GET', '/v1/me', undefined],
        ['POST', '/v1/links', { url: 'https://example.com/new' }],
      ] as const) {
        const started = performance.now();
        const response = await v1(method, url, payload);
        expect(performance.now() - started, url).toBeLessThan(2000);
        expect(response.statusCode, url).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.json()).toEqual({
          error: 'unavailable',
          message: expect.any(String),
          retryAfter: 5,
        });
      }
    } finally {
      proxy.restore();
    }
    // Back without a restart: the API answers and an unknown slug is a real 404 again.
    expect(await statusOnceBack(async () => (await v1('GET', '/v1/links')).statusCode, 200)).toBe(200);
    expect((await visit('/never-made')).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/health' })).json()).toEqual({ ok: true });
    expect((await visit('/metrics')).body).toMatch(/^linkhop_database_up 1$/m);
  });

  it('a tap outcome whose insert fails is held, then written once when the database is back', async () => {
    const tapTokens = createTapTokens({ secret: 'outcome-secret-0123456789abcdef0123' });
    const repo = createAnalyticsRepo(store);
    // A folder of its own: the composed app's queue (same process, same pid) retries its own folder.
    const outcomeDir = mkdtempSync(join(tmpdir(), 'linkhop-outcomes-'));
    const queue = createOutcomeQueue({
      insert: repo.insertOutcome,
      logger: { warn() {}, error() {} },
      dir: outcomeDir,
      maxHeld: 1,
    });
    const record = createOutcomeRecorder({
      repo,
      analytics: true,
      tapTokens,
      emitEvent: async () => {},
      now: () => new Date(),
      hold: (row) => queue.hold(row),
    });
    const tapIds = [randomUUID(), randomUUID()];
    const tokens = tapIds.map((tapId) =>
      tapTokens.issue({
        tapId,
        linkId: 'link-away',
        orgId: 'org-away',
        slug: 'away',
        shortHost: 'lnk.example',
        platformKey: 'youtube',
        sourceApp: 'instagram',
        country: null,
        city: null,
        device: 'ios',
        ts: new Date().toISOString(),
        variant: null,
      }),
    );
    await proxy.cut();
    try {
      expect(await record(tokens[0], 'opened')).toBe(true);
      expect(await record(tokens[1], 'broken')).toBe(true);
      // Past maxHeld the oldest went to disk.
      expect(queue.stats()).toEqual({ held: 1, dropped: 0 });
      expect(readdirSync(outcomeDir).some((file) => file.startsWith('outcomes-'))).toBe(true);
      // A retry while still away keeps the bound: the file is read back and written out again.
      await queue.retry();
      expect(queue.stats()).toEqual({ held: 1, dropped: 0 });
    } finally {
      proxy.restore();
    }
    await queue.retry();
    await queue.retry();
    expect(queue.stats()).toEqual({ held: 0, dropped: 0 });
    const rows = await sql<{ tap_id: string; outcome: string }>`select tap_id, outcome from tap_outcomes
      where org_id = 'org-away' order by outcome`.execute(testStore.store.db);
    expect(rows.rows).toEqual([
      { tap_id: tapIds[1], outcome: 'broken' },
      { tap_id: tapIds[0], outcome: 'opened' },
    ]);
    expect(readdirSync(outcomeDir).some((file) => file.startsWith('outcomes-'))).toBe(false);
    rmSync(outcomeDir, { recursive: true, force: true });
  });

  it('the engine: a cached link keeps redirecting, an unknown slug is a 503 page, its API 503', async () => {
    // The engine's own store (no Kysely) through the same proxy.
    const engineStore = openEngineStore(throughProxy(testStore.url, proxy), {
      ...(testStore.schema ? { schema: testStore.schema } : {}),
      maxConnections: 4,
      statementTimeoutMs: 1500,
    });
    const engine = await serveEngine(
      await composeEngine(
        parseEngineConfig({ BASE_URL: 'https://go.example', API_TOKEN: 'engine-token' }),
        engineStore,
        pino({ level: 'silent' }),
      ),
    );
    const auth = { authorization: 'Bearer engine-token' };
    const made = await engine.inject({
      method: 'POST',
      url: '/api/links',
      headers: auth,
      payload: { url: 'https://example.com/e' },
    });
    expect(made.statusCode).toBe(201);
    const engineSlug = made.json().slug as string;
    const go = (path: string) =>
      engine.inject({ method: 'GET', url: path, headers: { 'user-agent': UA.desktopChrome } });
    expect((await go(`/${engineSlug}`)).statusCode).toBe(301);
    await proxy.cut();
    try {
      expect((await go(`/${engineSlug}`)).statusCode).toBe(301);
      const unknown = await go('/nothere');
      expect(unknown.statusCode).toBe(503);
      expect(unknown.headers['retry-after']).toBe('5');
      const api = await engine.inject({ method: 'GET', url: '/api/links/nothere', headers: auth });
      expect(api.statusCode).toBe(503);
      expect(api.json()).toEqual({ error: 'Service unavailable' });
    } finally {
      proxy.restore();
    }
    // Back without a restart (the pool may still be reconnecting for the composed app's own writers).
    expect(await statusOnceBack(async () => (await go('/nothere')).statusCode, 404)).toBe(404);
    await engine.close();
    await engineStore.close();
  });
});

/**
 * Asks until the answer is `wanted`, for at most 5 s: the first request after the proxy is restored may
 * still find the pool reconnecting (its clients shared with the composed app's writers, each retrying).
 */
async function statusOnceBack(ask: () => Promise<number>, wanted: number): Promise<number> {
  const started = performance.now();
  let status = await ask();
  while (status !== wanted && performance.now() - started < 5000) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = await ask();
  }
  return status;
}
