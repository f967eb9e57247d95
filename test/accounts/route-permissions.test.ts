import { randomUUID } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemberService } from '../../src/accounts/members.js';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { OPERATOR } from '../../src/accounts/service.js';
import { ROLES, type Role, SCOPES, type Scope } from '../../src/tenancy/permissions.js';
import { featuresOf } from '../../src/tenancy/plans.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/**
 * Every /v1 and /api route of the composed app, read from the app itself, against every role and every
 * key scope (issue #20: "Every route checks the role"). The expectations come from the words,
 * written here independently of src/tenancy/permissions.ts: owners do everything; admins everything but
 * deleting the organization and changing owners; members create and edit links, bio, audience and
 * automations but not API keys, webhooks, members or the plan; viewers read.
 */

type Resource =
  | 'links'
  | 'analytics'
  | 'audience'
  | 'webhooks'
  | 'bio'
  | 'automations'
  | 'team'
  | 'domains'
  | 'sso';

/** Which part of the product a route belongs to, from its path. */
function resourceOf(url: string): Resource | 'self' {
  const path = url.replace(/^\/(v1|api)/, '');
  // /v1/mcp: any key may open it; each tool call is then checked as the /v1 route it calls.
  if (/^\/(me|session\/org|account\/.+|social\/meta|mcp)$/.test(path)) return 'self';
  // The links list's stats are clicks and app-open rates: analytics, whatever the path (issue #30).
  if (/^\/links\/(:id\/(stats|ab-stats|ab|clicks)|stats)$/.test(path) || path.startsWith('/analytics'))
    return 'analytics';
  // Imports create links and bulk actions change them: they are the links' business.
  if (/^\/(links|folders|pixels|imports|bulk-actions)(\/|$)/.test(path)) return 'links';
  if (/^\/domains(\/|$)/.test(path)) return 'domains';
  if (/^\/(audience|segments|broadcasts)(\/|$)/.test(path)) return 'audience';
  if (/^\/webhooks(\/|$)/.test(path)) return 'webhooks';
  if (/^\/(bio|media-kit)(\/|$)/.test(path)) return 'bio';
  if (/^\/social(\/|$)/.test(path)) return 'automations';
  if (/^\/(keys|members|invites|audit-log)(\/|$)/.test(path)) return 'team';
  // Single sign-on decides who enters the organization at all: owners only, no key scope reaches it.
  if (path === '/org/sso') return 'sso';
  throw new Error(`the test does not know where ${url} belongs: teach resourceOf`);
}

const READ = new Set(['GET', 'HEAD']);

/** The least role the issue asks for. */
function leastRole(method: string, url: string): Role {
  const resource = resourceOf(url);
  if (resource === 'self') return 'viewer';
  if (resource === 'sso') return 'owner';
  const path = url.replace(/^\/(v1|api)/, '');
  if (resource === 'team') {
    // Viewers read: the member list. Keys, invites and the audit log are owners' and admins' business.
    return method === 'GET' && path === '/members' ? 'viewer' : 'admin';
  }
  if (READ.has(method)) return 'viewer';
  return resource === 'webhooks' || resource === 'domains' ? 'admin' : 'member';
}

/** Whether a key with this one scope may call the route. */
function scopeAllows(scope: Scope, method: string, url: string): boolean {
  if (scope === 'all') return true;
  const resource = resourceOf(url);
  if (resource === 'self') return true;
  if (resource === 'team' || resource === 'sso') return false;
  const read = READ.has(method);
  switch (resource) {
    case 'links':
      return scope === 'links:write' || (read && scope === 'links:read');
    case 'domains':
      return read && (scope === 'links:read' || scope === 'links:write');
    case 'analytics':
      return read && scope === 'analytics:read';
    case 'audience':
      return scope === 'audience:write' || (read && scope === 'audience:read');
    case 'webhooks':
      return scope === 'webhooks:write';
    case 'bio':
      return scope === 'bio:write';
    case 'automations':
      return scope === 'automations:write';
  }
}

const RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

function urlOf(pattern: string): string {
  return pattern.replace(/:(\w+)/g, (_m, name: string) => (name === 'handle' ? 'nobody' : randomUUID()));
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `every route checks the role and the scope on ${kind.name}`,
    () => {
      let h: HostedHarness;
      const cookies = new Map<Role, string>();
      const keys = new Map<Scope, string>();

      beforeAll(async () => {
        h = await startHosted(kind);
        const password = 'correct horse battery';
        const { orgId } = await h.accounts.createOrganization({
          name: 'Roles',
          tier: 'legend',
          email: 'owner@roles.example',
          password,
        });
        const members = createMemberService({
          repo: createAccountRepo(h.testStore.store),
          accounts: h.accounts,
          now: () => new Date(),
        });
        const ctx = { orgId, tier: 'legend' as const, features: featuresOf('legend'), actor: OPERATOR };
        for (const role of ROLES) {
          const email = `${role}@roles.example`;
          if (role !== 'owner') await members.add(ctx, { email, role, password });
          const login = await h.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { email, password },
          });
          expect(login.statusCode).toBe(200);
          expect(login.json().role).toBe(role);
          cookies.set(role, String(login.headers['set-cookie']).split(';')[0] as string);
        }
        for (const scope of SCOPES) {
          keys.set(scope, (await h.accounts.mintApiKey(orgId, { name: scope, scopes: [scope] })).apiKey);
        }
      });
      afterAll(async () => h?.close());

      // /api/public/* are the public pages' own calls (capture form, tap beacon, provider webhooks, public
      // bio and media kit): outside any session by design.
      const guarded = () =>
        h.app.routeCatalog.filter(
          (route) =>
            /^\/(v1|api)\//.test(route.url) &&
            !route.url.startsWith('/api/public/') &&
            route.method !== 'HEAD',
        );

      it('declares a permission on every /v1 and /api route (a route without one fails here)', () => {
        const undeclared = guarded()
          .filter((route) => route.permission === undefined)
          .map((route) => `${route.method} ${route.url}`);
        expect(undeclared).toEqual([]);
        expect(guarded().length).toBeGreaterThan(100);
      });

      it('answers 403 forbidden_role exactly where the issue says a role may not go', {
        timeout: 120_000,
      }, async () => {
        const wrong: string[] = [];
        for (const route of guarded().filter((r) => r.url.startsWith('/api/') && r.permission !== 'public')) {
          const least = leastRole(route.method, route.url);
          for (const role of ROLES) {
            const request: InjectOptions = {
              method: route.method as InjectOptions['method'],
              url: urlOf(route.url),
              headers: { cookie: cookies.get(role) as string, origin: BASE_URL },
            };
            const response = await h.app.inject(request);
            const refused = response.statusCode === 403 && response.json().error === 'forbidden_role';
            const shouldRefuse = RANK[role] < RANK[least];
            if (refused !== shouldRefuse)
              wrong.push(
                `${role} ${route.method} ${route.url}: ${response.statusCode} ${response.body.slice(0, 100)}`,
              );
          }
        }
        expect(wrong).toEqual([]);
      });

      it("answers 403 forbidden_scope exactly where a key's scopes do not reach", {
        timeout: 120_000,
      }, async () => {
        const wrong: string[] = [];
        for (const route of guarded().filter((r) => r.url.startsWith('/v1/'))) {
          for (const scope of SCOPES) {
            const response = await h.v1(keys.get(scope) as string, {
              method: route.method as InjectOptions['method'],
              url: urlOf(route.url),
            });
            const refused = response.statusCode === 403 && response.json().error === 'forbidden_scope';
            if (refused === scopeAllows(scope, route.method, route.url))
              wrong.push(
                `${scope} ${route.method} ${route.url}: ${response.statusCode} ${response.body.slice(0, 100)}`,
              );
          }
        }
        expect(wrong).toEqual([]);
      });

      it('a refusal is the spec error body naming the role or the scopes needed', async () => {
        const viewer = await h.app.inject({
          method: 'POST',
          url: '/api/links',
          headers: { cookie: cookies.get('viewer') as string, 'content-type': 'application/json' },
          payload: { url: 'https://example.com' },
        });
        expect(viewer.statusCode).toBe(403);
        expect(viewer.json()).toEqual({
          error: 'forbidden_role',
          message: 'Your role in this organization (viewer) cannot do this; it needs member or above',
        });
        const reader = await h.v1(keys.get('links:read') as string, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://example.com' },
        });
        expect(reader.statusCode).toBe(403);
        expect(reader.json()).toEqual({
          error: 'forbidden_scope',
          message: "This API key's scopes (links:read) do not allow this; it needs links:write or all",
        });
        const created = await h.v1(keys.get('links:write') as string, {
          method: 'POST',
          url: '/v1/links',
          payload: { url: 'https://example.com' },
        });
        expect(created.statusCode).toBe(201);
      });
    },
  );
}
