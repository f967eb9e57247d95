import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTeam, type Team } from '../accounts/teams.js';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { type FakeDns, startFakeDns } from '../fakes/dns-server.js';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { type Call, EXEMPT, json, type Response, rows, type Via } from './coverage-rows.js';

/**
 * Issue #20: "Every change by a person or a key (link create, edit, archive, expiry; key create and
 * revoke; member and invite changes; webhook, pixel, folder, bio, automation changes; plan changes) writes
 * an audit row in the same transaction". One table row per change, performed through /v1 with a key and
 * through the dashboard's /api with a session wherever the route exists; each must write exactly one row
 * with the right action, target and actor, and nothing secret in `changes`. A last test walks the app's
 * own route catalogue so a new write route without a row here (or a reason in EXEMPT) fails.
 */

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`every change writes one audit row on ${kind.name}`, () => {
    let h: HostedHarness;
    let team: Team;
    let dns: FakeDns;
    let smtp: SmtpSink;
    let fake: FakeSocialProvider;
    let key: { apiKey: string; id: string };
    let providerUser = 17841400000001000n;

    beforeAll(async () => {
      dns = await startFakeDns();
      smtp = await startSmtp();
      fake = await new FakeSocialProvider().start();
      h = await startHosted(kind, {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
        DNS_RESOLVER: dns.address,
        SMTP_URL: smtp.url,
        SOCIAL_APP_ID: fake.appId,
        SOCIAL_APP_SECRET: fake.appSecret,
        TOKEN_VAULT_KEY: randomBytes(32).toString('base64'),
        SOCIAL_VERIFY_TOKEN: 'vt',
        SOCIAL_AUTHORIZE_BASE: fake.origin,
        SOCIAL_OAUTH_BASE: fake.origin,
        SOCIAL_API_BASE: fake.origin,
        CRON_SECRET: 'cron',
      });
      team = await makeTeam(h, `coverage-${kind.name}`);
      key = await h.accounts.mintApiKey(team.orgId, { name: 'Robot', scopes: ['all'] });
    });
    afterAll(async () => {
      await h?.close();
      await Promise.all([dns?.close(), smtp?.close(), fake?.stop()]);
    });

    const callers = (): Record<Via, Call> => ({
      v1: (method, path, payload) =>
        h.v1(key.apiKey, {
          method,
          url: `/v1${path}`,
          ...(payload === undefined ? {} : { payload: payload as object }),
        }),
      api: (method, path, payload) => team.as.owner(method, `/api${path}`, payload as object | undefined),
    });

    /** Consents at the fake provider and connects, as the dashboard does; answers the account id. */
    async function connectVia(call: Call): Promise<string> {
      const response = await connectResponse(call);
      expect(response.statusCode, response.body).toBe(201);
      return json(response).id as string;
    }
    async function connectResponse(call: Call): Promise<Response> {
      providerUser += 7n;
      const userId = providerUser.toString();
      fake.addAccount(userId, `creator${userId.slice(-4)}`);
      const meta = (await team.as.owner('GET', '/api/social/meta')).json();
      fake.consentUserId = userId;
      const back = new URL((await fetch(meta.authUrl, { redirect: 'manual' })).headers.get('location') ?? '');
      fake.consentUserId = null;
      return call('POST', '/social/connect', {
        code: back.searchParams.get('code'),
        state: back.searchParams.get('state'),
      });
    }

    const auditIds = async () =>
      new Set(
        (
          await h.testStore.store.db
            .selectFrom('audit_log')
            .select('id')
            .where('org_id', '=', team.orgId)
            .execute()
        ).map((row) => row.id),
      );
    const newRows = async (before: Set<string>) =>
      (
        await h.testStore.store.db
          .selectFrom('audit_log')
          .selectAll()
          .where('org_id', '=', team.orgId)
          .execute()
      )
        .filter((row) => !before.has(row.id))
        .sort((a, b) => a.at.localeCompare(b.at) || a.id.localeCompare(b.id));

    const table = rows({
      hosted: () => h,
      team: () => team,
      dns: () => dns,
      connect: (call) => connectVia(call),
    });

    for (const row of table) {
      for (const via of ['v1', 'api'] as const) {
        const [method, path] = row.route.split(' ') as [InjectOptions['method'], string];
        it(`${via}: ${row.route} → ${row.action}`, async (ctx) => {
          if (!h.app.hasRoute({ method: method as 'GET', url: `/${via}${path}` })) ctx.skip();
          const call = callers()[via];
          const state = (await row.setup?.(call)) ?? {};
          const before = await auditIds();
          const { path: url, payload } = row.request(state);
          const response =
            row.route === 'POST /social/connect'
              ? await connectResponse(call)
              : await call(method, url, payload);
          expect(response.statusCode, response.body).toBe(row.status ?? 200);
          const written = await newRows(before);
          expect(written.map((entry) => entry.action)).toEqual(Array(row.rows ?? 1).fill(row.action));
          const first = written[0];
          expect({ type: first?.target_type, id: first?.target_id }).toEqual(row.target(state, response));
          expect({ type: first?.actor_type, id: first?.actor_id, label: first?.actor_label }).toEqual(
            via === 'v1'
              ? { type: 'key', id: key.id, label: 'Robot' }
              : { type: 'user', id: team.userIds.owner, label: team.emails.owner },
          );
          // Nothing secret: no password sent, no key, signing secret or token answered.
          const changes = written.map((entry) => entry.changes).join('\n');
          const body = response.body.length > 0 ? (response.json() as Record<string, unknown>) : {};
          const secrets = [
            ...Object.entries(typeof payload === 'object' && payload !== null ? payload : {})
              .filter(([name]) => /password/i.test(name))
              .map(([, value]) => String(value)),
            ...['apiKey', 'secret', 'token']
              .map((name) => body[name])
              .filter((v): v is string => typeof v === 'string'),
          ];
          for (const secret of secrets) expect(changes).not.toContain(secret);
          // An organization keeps at most five webhooks: the ones made here go again.
          if (row.route === 'PATCH /webhooks/:id') await call('DELETE', `/webhooks/${state.hookId}`);
          if (row.route === 'POST /webhooks') await call('DELETE', `/webhooks/${json(response).id}`);
        });
      }
    }

    it('plan changes by the operator are logged as the operator’s', async () => {
      const before = await auditIds();
      await h.accounts.setTier(team.orgId, 'hero');
      await h.accounts.setTier(team.orgId, 'legend');
      const written = await newRows(before);
      expect(
        written.map((entry) => [entry.action, entry.target_type, entry.target_id, entry.actor_type]),
      ).toEqual([
        ['plan.changed', 'organization', team.orgId, 'user'],
        ['plan.changed', 'organization', team.orgId, 'user'],
      ]);
      expect(written.map((entry) => JSON.parse(entry.changes))).toEqual([
        { tier: { from: 'legend', to: 'hero' } },
        { tier: { from: 'hero', to: 'legend' } },
      ]);
    });

    it('the table covers every write route of /v1 and /api (or EXEMPT says why not)', () => {
      const covered = new Set(table.map((row) => row.route));
      const missing = h.app.routeCatalog
        .filter(
          (route) => /^\/(v1|api)\//.test(route.url) && !['GET', 'HEAD', 'OPTIONS'].includes(route.method),
        )
        .filter((route) => route.permission !== undefined && route.permission !== 'public')
        .map((route) => `${route.method} ${route.url.replace(/^\/(v1|api)/, '')}`)
        .filter((route) => !covered.has(route) && !(route in EXEMPT));
      expect([...new Set(missing)]).toEqual([]);
    });
  });
}
