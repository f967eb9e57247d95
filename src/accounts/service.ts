import type { Actor } from '../audit/schema.js';
import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { SessionContext } from '../tenancy/context.js';
import type { Role } from '../tenancy/permissions.js';
import { featuresOf, LINK_CAPS, type Tier } from '../tenancy/plans.js';
import { createKeyFunctions } from './keys.js';
import { wrongCredentials } from './password-attempts.js';
import type { AccountRepo, Organization } from './repo.js';
import { DUMMY_PASSWORD_HASH, hashPassword, randomToken, sha256Hex, verifyPassword } from './secrets.js';

export { MAX_ACTIVE_KEYS } from './keys.js';

const SESSION_DAYS = 30;

/** The plan of an instance's first account, its operator's: everything (a self-hoster gets it all). */
export const OPERATOR_TIER: Tier = 'legend';

/** The operator at the command line, as the audit log names them (plan changes, members added by CLI). */
export const OPERATOR: Actor = { type: 'user', id: 'operator', label: 'operator (linkhop CLI)' };

export interface AccountServiceDeps {
  repo: AccountRepo;
  now: () => Date;
  uuid: () => string;
  /**
   * After a plan change: the redirect caches branding, pixels and the fallback by plan, so every
   * instance must drop the organization's links (the CLI publishes this through Redis).
   */
  onPlanChange?: (orgId: string) => Promise<void>;
  audit?: AuditLog;
  /** SIGNUP_TIER: the plan a confirmed sign-up's organization starts on. */
  signupTier?: Tier;
  /**
   * Whether this person must sign in with their organization's single sign-on instead of a password
   * (src/sso: a member, not an owner, of an organization that requires it).
   */
  passwordRefused?: (userId: string) => Promise<boolean>;
}

export function createAccountService(deps: AccountServiceDeps) {
  const { repo } = deps;
  const iso = () => deps.now().toISOString();
  const keys = createKeyFunctions({ repo: repo.keys, now: deps.now, uuid: deps.uuid, audit: deps.audit });

  async function createUser(orgId: string, email: string, passwordHash: string, role: Role = 'owner') {
    const normalised = email.trim().toLowerCase();
    if (await repo.findUserByEmail(normalised)) throw appError('email_taken');
    const id = deps.uuid();
    await repo.insertUser({ id, orgId, email: normalised, passwordHash, createdAt: iso(), role });
    return id;
  }

  async function openSession(userId: string, orgId?: string): Promise<string> {
    const token = randomToken();
    const expires = new Date(deps.now().getTime() + SESSION_DAYS * 86_400_000).toISOString();
    await repo.insertSession(sha256Hex(token), userId, expires, iso());
    if (orgId) await repo.setSessionOrg(sha256Hex(token), orgId);
    return token;
  }

  async function getOrganization(orgId: string): Promise<Organization> {
    const org = await repo.findOrganization(orgId);
    if (!org) throw appError('not_found', `No organization ${orgId}`);
    return org;
  }

  return {
    ...keys,
    createUser,
    openSession,
    getOrganization,
    listOrganizations: () => repo.listOrganizations(),
    /** A person's email, or null once their account is gone. */
    findUserEmail: async (userId: string) => (await repo.findUserById(userId))?.email ?? null,

    async createOrganization(input: { name: string; tier: Tier; email?: string; password?: string }) {
      const org: Organization = { id: deps.uuid(), name: input.name, tier: input.tier, createdAt: iso() };
      await repo.insertOrganization(org);
      const userId =
        input.email && input.password
          ? await createUser(org.id, input.email, await hashPassword(input.password))
          : null;
      const apiKey = input.tier === 'legend' ? (await keys.mintApiKey(org.id)).apiKey : null;
      return { orgId: org.id, apiKey, userId };
    },

    /** Changes the plan and applies the link-cap rule both ways (downgrade locks, upgrade unlocks). */
    async setTier(orgId: string, tier: Tier, actor: Actor = OPERATOR) {
      const before = await getOrganization(orgId);
      await repo.members.transaction(async (trx) => {
        if (!(await repo.setTier(orgId, tier, trx))) throw appError('not_found', `No organization ${orgId}`);
        await deps.audit?.record(
          trx,
          { orgId, actor },
          {
            action: 'plan.changed',
            target: { type: 'organization', id: orgId },
            changes: before.tier === tier ? {} : { tier: { from: before.tier, to: tier } },
          },
        );
      });
      const readOnlyLinks = await repo.applyLinkCap(orgId, LINK_CAPS[tier]);
      await deps.onPlanChange?.(orgId);
      return { orgId, tier, readOnlyLinks };
    },

    /** Re-applies the cap after links are archived, so freed slots unlock read-only links oldest first. */
    async reapplyLinkCap(orgId: string, tier: Tier): Promise<number> {
      return repo.applyLinkCap(orgId, LINK_CAPS[tier]);
    },

    /**
     * Makes a user and an organization on the SIGNUP_TIER plan (`sidekick` unless the operator says
     * otherwise) and logs in: what a confirmed sign-up does (the email is proven by then;
     * src/accounts/signup.ts). `passwordHash` is already scrypt'ed. With `firstIsOperator` (sign-ups do),
     * the first account of an instance that has no organization yet is its operator's: Legend.
     */
    async createAccount(
      input: { email: string; passwordHash: string; orgName: string },
      options: { firstIsOperator?: boolean } = {},
    ) {
      const signupTier = deps.signupTier ?? 'sidekick';
      const email = input.email.trim().toLowerCase();
      if (await repo.findUserByEmail(email)) throw appError('email_taken');
      const createdAt = iso();
      const org = { id: deps.uuid(), name: input.orgName, createdAt };
      const userId = deps.uuid();
      const tier = await repo.insertAccount(
        { org, user: { id: userId, orgId: org.id, email, passwordHash: input.passwordHash, createdAt } },
        (first) => (first && options.firstIsOperator ? OPERATOR_TIER : signupTier),
      );
      return { token: await openSession(userId), userId, org: { ...org, tier } as Organization };
    },

    /**
     * The plan a sign-up made now would start on: Legend while the instance has no organization (its
     * first account is the operator's), SIGNUP_TIER after. What the sign-up page promises.
     */
    async signupPlan(): Promise<{ tier: Tier; firstAccount: boolean }> {
      const first = !(await repo.hasAnyOrganization());
      return { tier: first ? OPERATOR_TIER : (deps.signupTier ?? 'sidekick'), firstAccount: first };
    },

    /** One generic failure whatever was wrong; an unknown email costs a full scrypt like a known one. */
    async login(input: { email: string; password: string }): Promise<string> {
      const user = await repo.findUserByEmail(input.email.trim().toLowerCase());
      const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !ok) throw wrongCredentials();
      // After the password check: only someone who knows it learns that SSO is required.
      if (await deps.passwordRefused?.(user.id)) throw appError('sso_required');
      return openSession(user.id);
    },

    logout: (token: string) => repo.deleteSession(sha256Hex(token)),

    /**
     * The session's person and the organization they work in: the one the session chose if they still
     * belong to it, else their first. Null when logged out, expired, or left with no organization.
     */
    async session(token: string | undefined): Promise<SessionContext | null> {
      if (!token) return null;
      const tokenHash = sha256Hex(token);
      const row = await repo.findSession(tokenHash, iso());
      if (!row) return null;
      const orgs = (await repo.members.organizationsOf(row.userId)).map((org) => ({
        id: org.orgId,
        name: org.name,
        tier: org.tier as Tier,
        role: org.role,
      }));
      const current = orgs.find((org) => org.id === row.orgId) ?? orgs[0];
      if (!current) return null;
      return {
        user: { id: row.userId, email: row.email },
        org: { id: current.id, name: current.name, tier: current.tier },
        role: current.role,
        orgs,
        features: featuresOf(current.tier),
        tokenHash,
      };
    },

    /** The org switcher: later calls of this session work in `orgId`, which the user must belong to. */
    async switchOrganization(session: SessionContext, orgId: string): Promise<void> {
      if (!session.orgs.some((org) => org.id === orgId))
        throw appError('not_found', 'You are not a member of this organization');
      await repo.setSessionOrg(session.tokenHash, orgId);
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
