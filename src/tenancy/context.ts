import type { Role, Scope } from './permissions.js';
import type { Features, Tier } from './plans.js';

/**
 * Who made a change: a person (their email), an API key (its name), or the service itself acting on a
 * rule someone set (an A/B test's auto-promote), as the audit log names them.
 */
export interface Actor {
  type: 'user' | 'key' | 'system';
  id: string;
  label: string;
  /** A person's role in the organization at the time; keys have scopes instead. */
  role?: Role;
}

/** Who is calling, once authenticated: every scoped query takes its orgId from here. */
export interface OrgContext {
  orgId: string;
  tier: Tier;
  features: Features;
  /** The person or key acting, for the audit log; absent when the service acts on its own. */
  actor?: Actor;
  /** When a key acts: who made it, so a key it makes has the same maker (src/accounts/keys.ts). */
  keyMaker?: { createdBy: string | null; orgOwned: boolean };
}

/** A /v1 caller: its organization, the key, and what the key may do. */
export interface KeyContext extends OrgContext {
  keyId: string;
  scopes: Scope[];
  actor: Actor;
  /** The person who made the key (null for the organization's own): a key it makes has the same maker. */
  createdBy: string | null;
  orgOwned: boolean;
}

/**
 * A key that is valid but may not call the API (its organization's plan lacks it): still a 401, with a
 * message that says why, so its holder knows the key is right and the plan is not.
 */
export interface KeyRefusal {
  refused: string;
}

/** The dashboard's caller: the person, the organization they work in now, their role there, and the rest. */
export interface SessionContext {
  user: { id: string; email: string };
  org: { id: string; name: string; tier: Tier };
  role: Role;
  orgs: { id: string; name: string; tier: Tier; role: Role }[];
  features: Features;
  tokenHash: string;
}

/** The organization a dashboard session acts in, as every scoped service call takes it. */
export function sessionOrgContext(session: SessionContext): OrgContext {
  return {
    orgId: session.org.id,
    tier: session.org.tier,
    features: session.features,
    actor: { type: 'user', id: session.user.id, label: session.user.email, role: session.role },
  };
}
