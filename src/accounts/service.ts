import { timingSafeEqual } from 'node:crypto';
import { appError } from '../errors.js';
import { type Features, featuresOf, hasFeature, LINK_CAPS, type Tier } from './plans.js';
import type { AccountRepo, Organization } from './repo.js';
import { DUMMY_PASSWORD_HASH, hashPassword, randomToken, sha256Hex, verifyPassword } from './secrets.js';

const API_KEY_PREFIX = 'svc_';
const API_KEY_PATTERN = /^svc_[A-Za-z0-9_-]{43,}$/;
const SESSION_DAYS = 30;
/** Active (unrevoked) keys an organization may hold; the catalogue's too_many_keys message says 20. */
export const MAX_ACTIVE_KEYS = 20;

/** Who is calling, once authenticated: every scoped query takes its orgId from here. */
export interface OrgContext {
  orgId: string;
  tier: Tier;
  features: Features;
}

export interface AccountServiceDeps {
  repo: AccountRepo;
  now: () => Date;
  uuid: () => string;
  /**
   * After a plan change: the redirect caches branding, pixels and the fallback by plan, so every
   * instance must drop the organization's links (the CLI publishes this through Redis).
   */
  onPlanChange?: (orgId: string) => Promise<void>;
}

export function createAccountService(deps: AccountServiceDeps) {
  const { repo } = deps;
  const iso = () => deps.now().toISOString();

  async function mintApiKey(orgId: string): Promise<{ id: string; apiKey: string }> {
    const apiKey = `${API_KEY_PREFIX}${randomToken()}`;
    const id = deps.uuid();
    await repo.insertApiKey({
      id,
      orgId,
      keyHash: sha256Hex(apiKey),
      prefix: apiKey.slice(0, 8),
      revokedAt: null,
      createdAt: iso(),
    });
    return { id, apiKey };
  }

  async function createUser(orgId: string, email: string, passwordHash: string): Promise<string> {
    const normalised = email.trim().toLowerCase();
    if (await repo.findUserByEmail(normalised)) throw appError('email_taken');
    const id = deps.uuid();
    await repo.insertUser({ id, orgId, email: normalised, passwordHash, createdAt: iso() });
    return id;
  }

  async function openSession(userId: string): Promise<string> {
    const token = randomToken();
    const expires = new Date(deps.now().getTime() + SESSION_DAYS * 86_400_000).toISOString();
    await repo.insertSession(sha256Hex(token), userId, expires, iso());
    return token;
  }

  return {
    mintApiKey,
    /** A key asked for by the organization itself (the dashboard): within the cap of active keys. */
    async createApiKey(orgId: string): Promise<{ id: string; apiKey: string }> {
      const active = (await repo.listApiKeys(orgId)).filter((key) => key.revokedAt === null);
      if (active.length >= MAX_ACTIVE_KEYS) throw appError('too_many_keys');
      return mintApiKey(orgId);
    },

    async createOrganization(input: { name: string; tier: Tier; email?: string; password?: string }) {
      const org: Organization = { id: deps.uuid(), name: input.name, tier: input.tier, createdAt: iso() };
      await repo.insertOrganization(org);
      const userId =
        input.email && input.password
          ? await createUser(org.id, input.email, await hashPassword(input.password))
          : null;
      const apiKey = input.tier === 'legend' ? (await mintApiKey(org.id)).apiKey : null;
      return { orgId: org.id, apiKey, userId };
    },

    async getOrganization(orgId: string): Promise<Organization> {
      const org = await repo.findOrganization(orgId);
      if (!org) throw appError('not_found', `No organization ${orgId}`);
      return org;
    },

    /** Changes the plan and applies the link-cap rule both ways (downgrade locks, upgrade unlocks). */
    async setTier(orgId: string, tier: Tier) {
      if (!(await repo.setTier(orgId, tier))) throw appError('not_found', `No organization ${orgId}`);
      const readOnlyLinks = await repo.applyLinkCap(orgId, LINK_CAPS[tier]);
      await deps.onPlanChange?.(orgId);
      return { orgId, tier, readOnlyLinks };
    },

    /** Re-applies the cap after links are archived, so freed slots unlock read-only links oldest first. */
    async reapplyLinkCap(orgId: string, tier: Tier): Promise<number> {
      return repo.applyLinkCap(orgId, LINK_CAPS[tier]);
    },

    revokeApiKey: (keyId: string, orgId?: string) => repo.revokeApiKey(keyId, iso(), orgId),
    listApiKeys: (orgId: string) => repo.listApiKeys(orgId),

    /**
     * The /v1 credential check, read from the store on every call so a revocation or a downgrade takes
     * effect on the very next request. Null for a missing, malformed, unknown or revoked key, and for a
     * plan without the API.
     */
    async authenticateApiKey(
      authorization: string | undefined,
    ): Promise<(OrgContext & { keyId: string }) | null> {
      const match = authorization === undefined ? null : /^Bearer (\S+)$/.exec(authorization);
      const key = match?.[1];
      if (!key || !API_KEY_PATTERN.test(key)) return null;
      const hash = sha256Hex(key);
      const row = await repo.findLiveKeyByHash(hash);
      if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(hash))) return null;
      const tier = row.tier as Tier;
      if (!hasFeature(tier, 'api')) return null;
      return { orgId: row.orgId, tier, features: featuresOf(tier), keyId: row.keyId };
    },

    /**
     * Makes a user and a `sidekick` organization and logs in: what a confirmed sign-up does (the email
     * is proven by then; src/accounts/signup.ts). `passwordHash` is already scrypt'ed.
     */
    async createAccount(input: { email: string; passwordHash: string; orgName: string }) {
      const org: Organization = { id: deps.uuid(), name: input.orgName, tier: 'sidekick', createdAt: iso() };
      if (await repo.findUserByEmail(input.email.trim().toLowerCase())) throw appError('email_taken');
      await repo.insertOrganization(org);
      const userId = await createUser(org.id, input.email, input.passwordHash);
      return { token: await openSession(userId), userId, org };
    },

    /** One generic failure whatever was wrong; an unknown email costs a full scrypt like a known one. */
    async login(input: { email: string; password: string }): Promise<string> {
      const user = await repo.findUserByEmail(input.email.trim().toLowerCase());
      const ok = await verifyPassword(input.password, user?.passwordHash ?? DUMMY_PASSWORD_HASH);
      if (!user || !ok) throw appError('invalid_credentials');
      return openSession(user.id);
    },

    logout: (token: string) => repo.deleteSession(sha256Hex(token)),

    async session(token: string | undefined) {
      if (!token) return null;
      const row = await repo.findSession(sha256Hex(token), iso());
      if (!row) return null;
      const org = await repo.findOrganization(row.orgId);
      if (!org) return null;
      return { user: { id: row.userId, email: row.email }, org, features: featuresOf(org.tier) };
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
