import { randomBytes } from 'node:crypto';
import type { InjectOptions } from 'fastify';
import { createMemberService } from '../../src/accounts/members.js';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { featuresOf } from '../../src/tenancy/plans.js';
import { PASSWORD, type Team } from '../accounts/teams.js';
import { addContact } from '../audience/setup.js';
import type { FakeDns } from '../fakes/dns-server.js';
import type { HostedHarness } from '../helpers/hosted.js';

/** The table of test/audit/audit-coverage.test.ts: one row per change, and the write routes exempt. */

export type Via = 'v1' | 'api';
export type Response = Awaited<ReturnType<HostedHarness['v1']>>;
export type Call = (method: InjectOptions['method'], path: string, payload?: unknown) => Promise<Response>;

export interface Row {
  /** METHOD and path as the route is registered, without /v1 or /api. */
  route: string;
  action: string;
  /** Prepares what the change acts on (its own objects, so rows never depend on each other). */
  setup?: (call: Call) => Promise<Record<string, string>>;
  request: (state: Record<string, string>) => { path: string; payload?: unknown };
  /** The target type, and its id from the state or the response. */
  target: (state: Record<string, string>, response: Response) => { type: string; id: string };
  /** How many rows the change writes (a bulk create writes one per link). */
  rows?: number;
  status?: number;
}

/** A JSON answer's fields; `id` is always there on the answers read here. */
export const json = (response: Response) => response.json() as Record<string, string> & { id: string };
const linkOf = async (call: Call) => ({
  linkId: json(await call('POST', '/links', { url: 'https://example.com/a' })).id,
});

let seq = 0;
const unique = (prefix: string) => `${prefix}${++seq}${randomBytes(3).toString('hex')}`;

export function rows(env: {
  hosted: () => HostedHarness;
  team: () => Team;
  dns: () => FakeDns;
  connect: (call: Call) => Promise<string>;
}): Row[] {
  const link =
    (id: (s: Record<string, string>) => string = (s) => s.linkId as string) =>
    (s: Record<string, string>) => ({
      type: 'link',
      id: id(s),
    });
  const member = async () => {
    const team = env.team();
    const members = createMemberService({
      repo: createAccountRepo(env.hosted().testStore.store),
      accounts: env.hosted().accounts,
      now: () => new Date(),
    });
    const ctx = { orgId: team.orgId, tier: 'legend' as const, features: featuresOf('legend') };
    const email = `${unique('m')}@audit.example`;
    return { userId: (await members.add(ctx, { email, role: 'member', password: PASSWORD })).userId };
  };
  return [
    {
      route: 'POST /links',
      action: 'link.created',
      request: () => ({
        path: '/links',
        payload: { url: 'https://example.com/new', password: 'link-secret-1' },
      }),
      target: (_s, r) => ({ type: 'link', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'PATCH /links/:id',
      action: 'link.updated',
      setup: linkOf,
      request: (s) => ({
        path: `/links/${s.linkId}`,
        payload: { url: 'https://example.com/edited', password: 'link-secret-2' },
      }),
      target: link(),
    },
    {
      route: 'PATCH /links/:id',
      action: 'link.updated',
      setup: linkOf,
      request: (s) => ({
        path: `/links/${s.linkId}`,
        payload: {
          expiresAt: '2030-01-01T00:00:00.000Z',
          expiredUrl: 'https://example.com/over',
          maxClicks: 5,
        },
      }),
      target: link(),
    },
    {
      route: 'POST /links/:id/archive',
      action: 'link.archived',
      setup: linkOf,
      request: (s) => ({ path: `/links/${s.linkId}/archive` }),
      target: link(),
    },
    {
      route: 'POST /links/:id/unarchive',
      action: 'link.updated',
      setup: async (call) => {
        const s = await linkOf(call);
        await call('POST', `/links/${s.linkId}/archive`);
        return s;
      },
      request: (s) => ({ path: `/links/${s.linkId}/unarchive` }),
      target: link(),
    },
    {
      route: 'POST /links/:id/ab/promote',
      action: 'link.ab_promoted',
      setup: async (call) => ({
        linkId: json(
          await call('POST', '/links', {
            url: 'https://example.com/a',
            ab: [
              { u: 'https://example.com/a1', w: 1 },
              { u: 'https://example.com/a2', w: 1 },
            ],
          }),
        ).id,
      }),
      request: (s) => ({ path: `/links/${s.linkId}/ab/promote`, payload: { variant: 1 } }),
      target: link(),
    },
    {
      route: 'PUT /links/:id/og',
      action: 'link.preview_set',
      setup: linkOf,
      request: (s) => ({
        path: `/links/${s.linkId}/og`,
        payload: { title: 'Card', image: 'https://img.example/a.png' },
      }),
      target: link(),
    },
    {
      route: 'DELETE /links/:id/og',
      action: 'link.preview_cleared',
      setup: async (call) => {
        const s = await linkOf(call);
        await call('PUT', `/links/${s.linkId}/og`, { title: 'Card' });
        return s;
      },
      request: (s) => ({ path: `/links/${s.linkId}/og` }),
      target: link(),
    },
    {
      route: 'POST /links/bulk',
      action: 'link.created',
      request: () => ({
        path: '/links/bulk',
        payload: { links: [{ url: 'https://example.com/b1' }, { url: 'https://example.com/b2' }] },
      }),
      target: (_s, r) => ({ type: 'link', id: (r.json().results as { id: string }[])[0]?.id as string }),
      rows: 2,
    },
    {
      route: 'POST /bulk-actions',
      action: 'link.updated',
      setup: linkOf,
      request: (s) => ({
        path: '/bulk-actions',
        payload: { selection: { ids: [s.linkId] }, action: { type: 'add_tags', tags: ['audited'] } },
      }),
      target: link(),
    },
    {
      route: 'POST /imports',
      action: 'import.started',
      request: () => ({
        path: '/imports',
        payload: { source: 'csv', csv: 'url\nhttps://example.com/imported\n' },
      }),
      target: (_s, r) => ({ type: 'import', id: json(r).id }),
      status: 202,
    },
    {
      route: 'POST /keys',
      action: 'key.created',
      request: () => ({ path: '/keys', payload: { name: unique('key'), scopes: ['links:read'] } }),
      target: (_s, r) => ({ type: 'key', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'DELETE /keys/:id',
      action: 'key.revoked',
      setup: async (call) => ({
        keyId: json(await call('POST', '/keys', { name: unique('k'), scopes: ['all'] })).id as string,
      }),
      request: (s) => ({ path: `/keys/${s.keyId}` }),
      target: (s) => ({ type: 'key', id: s.keyId as string }),
    },
    {
      route: 'PATCH /members/:userId',
      action: 'member.role_changed',
      setup: member,
      request: (s) => ({ path: `/members/${s.userId}`, payload: { role: 'viewer' } }),
      target: (s) => ({ type: 'member', id: s.userId as string }),
    },
    {
      route: 'DELETE /members/:userId',
      action: 'member.removed',
      setup: member,
      request: (s) => ({ path: `/members/${s.userId}` }),
      target: (s) => ({ type: 'member', id: s.userId as string }),
    },
    {
      route: 'POST /invites',
      action: 'invite.created',
      request: () => ({
        path: '/invites',
        payload: { email: `${unique('i')}@audit.example`, role: 'member' },
      }),
      target: (_s, r) => ({ type: 'invite', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'DELETE /invites/:id',
      action: 'invite.revoked',
      setup: async (call) => ({
        inviteId: json(
          await call('POST', '/invites', { email: `${unique('r')}@audit.example`, role: 'viewer' }),
        ).id as string,
      }),
      request: (s) => ({ path: `/invites/${s.inviteId}` }),
      target: (s) => ({ type: 'invite', id: s.inviteId as string }),
    },
    {
      route: 'POST /webhooks',
      action: 'webhook.created',
      request: () => ({
        path: '/webhooks',
        payload: { url: 'http://127.0.0.1:9/hook', events: ['link.created'] },
      }),
      target: (_s, r) => ({ type: 'webhook', id: json(r).id as string }),
      status: 201,
    },
    ...(['PATCH', 'DELETE'] as const).map(
      (method): Row => ({
        route: `${method} /webhooks/:id`,
        action: method === 'PATCH' ? 'webhook.updated' : 'webhook.deleted',
        setup: async (call) => {
          // At most 5 webhooks: each row cleans up after itself by deleting, PATCH rows delete in teardown.
          const hook = json(
            await call('POST', '/webhooks', { url: 'http://127.0.0.1:9/h', events: ['link.created'] }),
          );
          return { hookId: hook.id as string };
        },
        request: (s) => ({
          path: `/webhooks/${s.hookId}`,
          ...(method === 'PATCH' ? { payload: { active: false } } : {}),
        }),
        target: (s) => ({ type: 'webhook', id: s.hookId as string }),
      }),
    ),
    {
      route: 'POST /pixels',
      action: 'pixel.created',
      request: () => ({ path: '/pixels', payload: { type: 'gtm', pixelId: 'GTM-AB12CD', name: 'Tags' } }),
      target: (_s, r) => ({ type: 'pixel', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'DELETE /pixels/:id',
      action: 'pixel.deleted',
      setup: async (call) => ({
        pixelId: json(await call('POST', '/pixels', { type: 'gtm', pixelId: 'GTM-CD34EF', name: 'P' }))
          .id as string,
      }),
      request: (s) => ({ path: `/pixels/${s.pixelId}` }),
      target: (s) => ({ type: 'pixel', id: s.pixelId as string }),
    },
    {
      route: 'POST /folders',
      action: 'folder.created',
      request: () => ({ path: '/folders', payload: { name: unique('Folder ') } }),
      target: (_s, r) => ({ type: 'folder', id: json(r).id as string }),
      status: 201,
    },
    ...(['PATCH', 'DELETE'] as const).map(
      (method): Row => ({
        route: `${method} /folders/:id`,
        action: method === 'PATCH' ? 'folder.renamed' : 'folder.deleted',
        setup: async (call) => ({
          folderId: json(await call('POST', '/folders', { name: unique('F ') })).id as string,
        }),
        request: (s) => ({
          path: `/folders/${s.folderId}`,
          ...(method === 'PATCH' ? { payload: { name: unique('G ') } } : {}),
        }),
        target: (s) => ({ type: 'folder', id: s.folderId as string }),
      }),
    ),
    {
      route: 'PUT /bio',
      action: 'bio.updated',
      setup: async (call) => {
        await call('PUT', '/bio', { handle: unique('h'), title: 'Me' });
        return {};
      },
      request: () => ({ path: '/bio', payload: { handle: unique('h'), title: 'Me again', published: true } }),
      target: (_s, r) => ({ type: 'bio_page', id: json(r).id as string }),
    },
    {
      route: 'PUT /bio/blocks',
      action: 'bio.blocks_replaced',
      setup: async (call) => {
        const { linkId } = await linkOf(call);
        const bio = json(await call('PUT', '/bio', { handle: unique('h'), title: 'Me' }));
        return { linkId, bioId: bio.id as string };
      },
      request: (s) => ({
        path: '/bio/blocks',
        payload: [{ t: 'link', id: 'b1', linkId: s.linkId, label: 'Song' }],
      }),
      target: (s) => ({ type: 'bio_page', id: s.bioId as string }),
    },
    {
      route: 'DELETE /bio',
      action: 'bio.deleted',
      setup: async (call) => ({
        bioId: json(await call('PUT', '/bio', { handle: unique('h'), title: 'Me' })).id as string,
      }),
      request: () => ({ path: '/bio' }),
      target: (s) => ({ type: 'bio_page', id: s.bioId as string }),
    },
    {
      route: 'PUT /media-kit',
      action: 'media_kit.updated',
      setup: async (call) => ({
        pageId: json(await call('PUT', '/bio', { handle: unique('h'), title: 'Me' })).id,
      }),
      request: () => ({ path: '/media-kit', payload: { published: true } }),
      target: (s) => ({ type: 'media_kit', id: s.pageId as string }),
    },
    {
      route: 'DELETE /media-kit',
      action: 'media_kit.deleted',
      setup: async (call) => {
        const pageId = json(await call('PUT', '/bio', { handle: unique('h'), title: 'Me' })).id;
        await call('PUT', '/media-kit', { published: true });
        return { pageId };
      },
      request: () => ({ path: '/media-kit' }),
      target: (s) => ({ type: 'media_kit', id: s.pageId as string }),
    },
    {
      route: 'POST /domains',
      action: 'domain.added',
      request: () => ({ path: '/domains', payload: { hostname: `${unique('d')}.audit.example` } }),
      target: (_s, r) => ({ type: 'domain', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'POST /domains/:id/verify',
      action: 'domain.verified',
      setup: async (call) => {
        const domain = (await call('POST', '/domains', { hostname: `${unique('v')}.audit.example` })).json();
        env.dns().txt.set(domain.verification.name, [domain.verification.value]);
        return { domainId: domain.id };
      },
      request: (s) => ({ path: `/domains/${s.domainId}/verify` }),
      target: (s) => ({ type: 'domain', id: s.domainId as string }),
    },
    {
      route: 'DELETE /domains/:id',
      action: 'domain.removed',
      setup: async (call) => ({
        domainId: json(await call('POST', '/domains', { hostname: `${unique('x')}.audit.example` }))
          .id as string,
      }),
      request: (s) => ({ path: `/domains/${s.domainId}` }),
      target: (s) => ({ type: 'domain', id: s.domainId as string }),
    },
    {
      route: 'POST /social/connect',
      action: 'social.connected',
      setup: async () => ({}),
      request: () => ({ path: '/social/connect' }),
      target: (_s, r) => ({ type: 'social_account', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'DELETE /social/accounts/:id',
      action: 'social.disconnected',
      setup: async (call) => ({ accountId: await env.connect(call) }),
      request: (s) => ({ path: `/social/accounts/${s.accountId}` }),
      target: (s) => ({ type: 'social_account', id: s.accountId as string }),
    },
    {
      route: 'POST /social/automations',
      action: 'automation.created',
      setup: async (call) => ({ accountId: await env.connect(call), ...(await linkOf(call)) }),
      request: (s) => ({ path: '/social/automations', payload: rule(s) }),
      target: (_s, r) => ({ type: 'automation', id: json(r).id as string }),
      status: 201,
    },
    ...(['PATCH', 'DELETE'] as const).map(
      (method): Row => ({
        route: `${method} /social/automations/:id`,
        action: method === 'PATCH' ? 'automation.updated' : 'automation.deleted',
        setup: async (call) => {
          const s = { accountId: await env.connect(call), ...(await linkOf(call)) };
          return { ruleId: json(await call('POST', '/social/automations', rule(s))).id as string };
        },
        request: (s) => ({
          path: `/social/automations/${s.ruleId}`,
          ...(method === 'PATCH' ? { payload: { dmText: 'Here it is', enabled: false } } : {}),
        }),
        target: (s) => ({ type: 'automation', id: s.ruleId as string }),
      }),
    ),
    {
      route: 'DELETE /audience/:id',
      action: 'contact.deleted',
      setup: async () => ({
        contactId: await addContact(env.hosted().testStore.store, env.team().orgId, {
          email: `${unique('c')}@fan.example`,
          createdAt: new Date().toISOString(),
        }),
      }),
      request: (s) => ({ path: `/audience/${s.contactId}` }),
      target: (s) => ({ type: 'contact', id: s.contactId as string }),
    },
    {
      route: 'POST /segments',
      action: 'segment.created',
      request: () => ({ path: '/segments', payload: { name: unique('S'), filter: { country: 'GB' } } }),
      target: (_s, r) => ({ type: 'segment', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'DELETE /segments/:id',
      action: 'segment.deleted',
      setup: async (call) => ({
        segmentId: json(await call('POST', '/segments', { name: unique('T') })).id as string,
      }),
      request: (s) => ({ path: `/segments/${s.segmentId}` }),
      target: (s) => ({ type: 'segment', id: s.segmentId as string }),
    },
    {
      route: 'POST /broadcasts',
      action: 'broadcast.created',
      request: () => ({ path: '/broadcasts', payload: DRAFT }),
      target: (_s, r) => ({ type: 'broadcast', id: json(r).id as string }),
      status: 201,
    },
    {
      route: 'PATCH /broadcasts/:id',
      action: 'broadcast.updated',
      setup: async (call) => ({ broadcastId: json(await call('POST', '/broadcasts', DRAFT)).id as string }),
      request: (s) => ({ path: `/broadcasts/${s.broadcastId}`, payload: { subject: 'Bigger news' } }),
      target: (s) => ({ type: 'broadcast', id: s.broadcastId as string }),
    },
    {
      route: 'POST /broadcasts/:id/send',
      action: 'broadcast.sent',
      setup: async (call) => ({ broadcastId: json(await call('POST', '/broadcasts', DRAFT)).id as string }),
      request: (s) => ({ path: `/broadcasts/${s.broadcastId}/send` }),
      target: (s) => ({ type: 'broadcast', id: s.broadcastId as string }),
      status: 202,
    },
  ];
}

const DRAFT = { subject: 'Big news', html: '<p>New single</p>', text: 'New single' };
const rule = (s: Record<string, string>) => ({
  accountId: s.accountId,
  linkId: s.linkId,
  dmText: 'Here',
  trigger: { type: 'comment', match: { mode: 'any', keywords: [] }, mediaId: null },
});

/**
 * Write routes that write no audit row, each with why. Everything else that writes is in the table.
 * Sign-up, log-in, password reset and the org switch are not changes to an organization's content.
 */
export const EXEMPT: Record<string, string> = {
  'POST /links/:id/og/scrape': 're-reads the destination: no person chose what changed',
  'POST /invites/accept': 'public; audited as invite.accepted (test/members/invite-race.test.ts)',
  'POST /invites/inspect': 'reads an invite',
  'POST /session/org': 'switches the session, changes nothing',
  'POST /account/password': 'the person’s own account, not the organization’s content',
  'POST /account/delete': 'audited as member.left (test/accounts/account-deletion.test.ts)',
  'POST /account/leave': 'audited as member.left (test/accounts/leaving.test.ts)',
  'POST /mcp':
    'each tool call is the /v1 route it calls, audited there as the key (test/mcp/http-transport.test.ts)',
  'DELETE /mcp': 'answers 405: a stateless MCP server has no session to end',
  'PUT /org/sso':
    'needs a live OpenID provider: audited as sso.configured, without the secret (test/sso/settings.test.ts)',
  'DELETE /org/sso': 'audited as sso.removed (src/sso/settings.ts), beside PUT',
};
