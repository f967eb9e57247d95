/**
 * Who may do what (issue #20): the roles of a team, the scopes of an API key, and the one table that
 * says, for each permission a route declares, the least role and the scopes that grant it. Pure data
 * plus two lookups, like plans.ts; src/http/authorize.ts is the one place it is applied.
 */

/** Most powerful first. */
export const ROLES = ['owner', 'admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const SCOPES = [
  'links:read',
  'links:write',
  'analytics:read',
  'audience:read',
  'audience:write',
  'webhooks:write',
  'bio:write',
  'automations:write',
  'all',
] as const;
export type Scope = (typeof SCOPES)[number];

interface Rule {
  /** The least role a person needs. */
  role: Role;
  /** The scopes that let a key through; `all` always does, and a rule with none admits only `all`. */
  scopes: readonly Scope[];
}

/**
 * Every permission a route may declare. `public` routes need no one (sign-up, log-in, public pages);
 * `authenticated` ones anyone signed in (their own session, `/v1/me`). Writing implies reading, so each
 * `:read` rule lists its `:write` scope too. Where the issue is silent: domains are an admin's business
 * (they touch DNS), folders and pixels a member's (they are part of making links).
 */
export const PERMISSIONS = {
  public: { role: 'viewer', scopes: [] },
  authenticated: { role: 'viewer', scopes: SCOPES },
  'links:read': { role: 'viewer', scopes: ['links:read', 'links:write'] },
  'links:write': { role: 'member', scopes: ['links:write'] },
  'analytics:read': { role: 'viewer', scopes: ['analytics:read'] },
  'audience:read': { role: 'viewer', scopes: ['audience:read', 'audience:write'] },
  'audience:write': { role: 'member', scopes: ['audience:write'] },
  'bio:read': { role: 'viewer', scopes: ['bio:write'] },
  'bio:write': { role: 'member', scopes: ['bio:write'] },
  'automations:read': { role: 'viewer', scopes: ['automations:write'] },
  'automations:write': { role: 'member', scopes: ['automations:write'] },
  'webhooks:read': { role: 'viewer', scopes: ['webhooks:write'] },
  'webhooks:write': { role: 'admin', scopes: ['webhooks:write'] },
  'domains:read': { role: 'viewer', scopes: ['links:read', 'links:write'] },
  'domains:write': { role: 'admin', scopes: [] },
  'members:read': { role: 'viewer', scopes: [] },
  'members:write': { role: 'admin', scopes: [] },
  'keys:write': { role: 'admin', scopes: [] },
  'audit:read': { role: 'admin', scopes: [] },
  // Single sign-on decides who may enter the organization at all: its owners' business alone.
  'sso:read': { role: 'owner', scopes: [] },
  'sso:write': { role: 'owner', scopes: [] },
} as const satisfies Record<string, Rule>;
export type Permission = keyof typeof PERMISSIONS;

/** A route that forgot to declare one: only owners and keys with `all`, until it does. */
const UNDECLARED: Rule = { role: 'owner', scopes: [] };

const RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };

export function atLeast(role: Role, least: Role): boolean {
  return RANK[role] >= RANK[least];
}

export function roleAllows(role: Role, permission: Permission | undefined): boolean {
  return atLeast(role, (permission ? PERMISSIONS[permission] : UNDECLARED).role);
}

export function scopesAllow(scopes: readonly Scope[], permission: Permission | undefined): boolean {
  if (scopes.includes('all')) return true;
  const rule: Rule = permission ? PERMISSIONS[permission] : UNDECLARED;
  return rule.scopes.some((scope) => scopes.includes(scope));
}

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

export function isScope(value: unknown): value is Scope {
  return typeof value === 'string' && (SCOPES as readonly string[]).includes(value);
}
