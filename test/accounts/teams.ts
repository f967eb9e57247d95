import type { InjectOptions } from 'fastify';
import { expect } from 'vitest';
import { createMemberService } from '../../src/accounts/members.js';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { OPERATOR } from '../../src/accounts/service.js';
import { SESSION_COOKIE } from '../../src/http/session-auth.js';
import type { Role } from '../../src/tenancy/permissions.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';
import { BASE_URL, type HostedHarness } from '../helpers/hosted.js';

/** Shared by the teams tests: an organization with a person in each role, logged in. */

export const PASSWORD = 'correct horse battery';

export type Call = (
  method: InjectOptions['method'],
  url: string,
  payload?: object,
) => ReturnType<HostedHarness['v1']>;

/** Dashboard calls as a browser makes them: the cookie, our origin, JSON. */
export function asCookie(h: HostedHarness, cookie: string): Call {
  return (method, url, payload) =>
    h.app.inject({
      method,
      url,
      headers: {
        cookie,
        origin: BASE_URL,
        ...(payload ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload ? { payload } : {}),
    });
}

/**
 * The accept token of the newest invite to `email`, read where an operator without SMTP finds it: its own
 * line in the server log (never the inviter's API answer). Waits a moment: the line is written after the
 * answer.
 */
export async function invitedToken(h: HostedHarness, email: string): Promise<string> {
  const started = Date.now();
  for (;;) {
    const line = h.logged.findLast((entry) => entry.email === email && typeof entry.link === 'string');
    const token = line && /#\/invite\/([A-Za-z0-9_-]+)$/.exec(line.link as string)?.[1];
    if (token) return token;
    if (Date.now() - started > 5000) throw new Error(`no invite link for ${email} in the server log`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Invites `email` as `role` through `as`, and answers the accept token the invitee would get. */
export async function invite(h: HostedHarness, as: Call, email: string, role: Role): Promise<string> {
  const created = await as('POST', '/api/invites', { email, role });
  expect(created.statusCode, created.body).toBe(201);
  expect(created.json()).not.toHaveProperty('acceptUrl');
  return invitedToken(h, email);
}

export async function login(h: HostedHarness, email: string, password = PASSWORD): Promise<string> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/api/auth/login',
    payload: { email, password },
  });
  expect(response.statusCode, response.body).toBe(200);
  return String(response.headers['set-cookie']).split(';')[0] as string;
}

export interface Team {
  orgId: string;
  emails: Record<Role, string>;
  userIds: Record<Role, string>;
  as: Record<Role, Call>;
}

/** An organization named `name` with one person per role (emails `<role>@<tag>.example`). */
export async function makeTeam(h: HostedHarness, tag: string, tier: Tier = 'legend'): Promise<Team> {
  const emails = {
    owner: `owner@${tag}.example`,
    admin: `admin@${tag}.example`,
    member: `member@${tag}.example`,
    viewer: `viewer@${tag}.example`,
  };
  const { orgId, userId } = await h.accounts.createOrganization({
    name: `Team ${tag}`,
    tier,
    email: emails.owner,
    password: PASSWORD,
  });
  const members = createMemberService({
    repo: createAccountRepo(h.testStore.store),
    accounts: h.accounts,
    now: () => new Date(),
  });
  const ctx = { orgId, tier, features: featuresOf(tier), actor: OPERATOR };
  const userIds = { owner: userId as string } as Record<Role, string>;
  for (const role of ['admin', 'member', 'viewer'] as const) {
    userIds[role] = (await members.add(ctx, { email: emails[role], role, password: PASSWORD })).userId;
  }
  // Sessions opened as a log-in opens them: the log-in route's per-address limit is not what is tested here.
  const as = {} as Record<Role, Call>;
  for (const role of ['owner', 'admin', 'member', 'viewer'] as const)
    as[role] = asCookie(h, `${SESSION_COOKIE}=${await h.accounts.openSession(userIds[role])}`);
  return { orgId, emails, userIds, as };
}
