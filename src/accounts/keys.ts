import { timingSafeEqual } from 'node:crypto';
import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { KeyContext, KeyRefusal, OrgContext } from '../tenancy/context.js';
import { atLeast, isRole, type Role, type Scope } from '../tenancy/permissions.js';
import { featuresOf, hasFeature, lowestTierWith, PLAN_NAMES, type Tier } from '../tenancy/plans.js';
import type { KeyRepo } from './key-repo.js';
import { randomToken, sha256Hex } from './secrets.js';

const API_KEY_PREFIX = 'svc_';
const API_KEY_PATTERN = /^svc_[A-Za-z0-9_-]{43,}$/;
/** What a valid key of an organization whose plan lacks the API is told (401, never the plan's secret). */
export function planLacksApiMessage(tier: Tier): string {
  return `This key's organization is on ${PLAN_NAMES[tier]}; the API is part of ${PLAN_NAMES[lowestTierWith('api')]}`;
}

/** Active (unrevoked) keys an organization may hold; the catalogue's too_many_keys message says 20. */
export const MAX_ACTIVE_KEYS = 20;
/** `last used` is a day-to-day fact: written at most once a minute per key, not on every call. */
const TOUCH_EVERY_MS = 60_000;
const TOUCHED_MAX = 10_000;

export interface KeyDeps {
  repo: KeyRepo;
  now: () => Date;
  uuid: () => string;
  audit?: AuditLog;
}

export interface NewKey {
  name: string;
  scopes: Scope[];
  /** The organization's own key, surviving its maker's removal: owners (and the CLI) only. */
  organizationKey?: boolean;
}

/** Roles that may hold keys: a maker who drops below loses the keys they made. */
export const KEY_HOLDER_ROLE: Role = 'admin';

/**
 * Who a new key belongs to. A person's key is theirs; a key made with a key has that key's maker (so a
 * key cannot launder itself out of its maker's removal); the CLI's (no context) are the organization's.
 * Only an owner, or a key that is itself the organization's, may make one the organization's.
 */
function makerOf(ctx: OrgContext | undefined, organizationKey: boolean | undefined) {
  if (!ctx) return { createdBy: null, orgOwned: true };
  const actor = ctx.actor;
  const parent = ctx.keyMaker;
  const createdBy =
    actor?.type === 'user' && actor.id !== 'operator' ? actor.id : (parent?.createdBy ?? null);
  const mayMarkOrg =
    (actor?.type === 'user' && (actor.id === 'operator' || actor.role === 'owner')) ||
    parent?.orgOwned === true;
  if (organizationKey && !mayMarkOrg)
    throw appError('forbidden_role', 'Only an owner makes a key the organization’s own');
  const orgOwned = organizationKey === true || createdBy === null;
  return { createdBy: orgOwned ? null : createdBy, orgOwned };
}

/** Why an empty scope list is refused: it once minted an `all` key (issue #30). Leaving scopes out means all. */
export const NO_SCOPES_MESSAGE = 'scopes: name at least one scope, or leave scopes out for a key with all';

/** Scopes as stored: `all` alone when present (it already grants everything), no repeats, in order. */
function normalizeScopes(scopes: readonly Scope[]): Scope[] {
  // An empty list grants nothing as asked, and everything as it used to be read: neither is meant.
  if (scopes.length === 0) throw appError('invalid_body', NO_SCOPES_MESSAGE);
  if (scopes.includes('all')) return ['all'];
  return [...new Set(scopes)];
}

/** Named, scoped API keys: minting, listing, revoking, and the /v1 credential check. */
export function createKeyFunctions(deps: KeyDeps) {
  const { repo } = deps;
  const iso = () => deps.now().toISOString();
  const touched = new Map<string, number>();

  async function mintApiKey(
    orgId: string,
    key: NewKey = { name: 'API key', scopes: ['all'] },
    ctx?: OrgContext,
  ) {
    const apiKey = `${API_KEY_PREFIX}${randomToken()}`;
    const maker = makerOf(ctx, key.organizationKey);
    const row = {
      id: deps.uuid(),
      orgId,
      name: key.name,
      keyHash: sha256Hex(apiKey),
      prefix: apiKey.slice(0, 8),
      scopes: normalizeScopes(key.scopes),
      revokedAt: null,
      createdAt: iso(),
      lastUsedAt: null,
      ...maker,
    };
    await repo.db.transaction().execute(async (trx) => {
      await repo.insertApiKey(trx, row);
      if (ctx) {
        await deps.audit?.record(trx, ctx, {
          action: 'key.created',
          target: { type: 'key', id: row.id },
          changes: {
            name: { from: null, to: row.name },
            scopes: { from: null, to: row.scopes },
            ...(row.orgOwned ? { organizationKey: { from: null, to: true } } : {}),
          },
        });
      }
    });
    return {
      id: row.id,
      apiKey,
      name: row.name,
      scopes: row.scopes,
      prefix: row.prefix,
      createdAt: row.createdAt,
      createdBy: row.createdBy,
      orgOwned: row.orgOwned,
    };
  }

  /** Last used, at most once a minute per key and instance; a failed write never fails the call. */
  function touch(keyId: string): void {
    const now = deps.now().getTime();
    if (now - (touched.get(keyId) ?? 0) < TOUCH_EVERY_MS) return;
    if (touched.size >= TOUCHED_MAX) touched.clear();
    touched.set(keyId, now);
    repo.touchApiKey(keyId, new Date(now).toISOString()).catch(() => touched.delete(keyId));
  }

  return {
    mintApiKey,

    /** A key asked for by a person or a key of the organization: within the cap of active keys. */
    async createApiKey(ctx: OrgContext, key: NewKey) {
      const active = (await repo.listApiKeys(ctx.orgId)).filter((row) => row.revokedAt === null);
      if (active.length >= MAX_ACTIVE_KEYS) throw appError('too_many_keys');
      return mintApiKey(ctx.orgId, key, ctx);
    },

    listApiKeys: (orgId: string) => repo.listApiKeys(orgId),

    /** Revokes by id, within `ctx`'s organization when given; false when nothing live was revoked. */
    async revokeApiKey(keyId: string, ctx?: OrgContext): Promise<boolean> {
      return repo.db.transaction().execute(async (trx) => {
        const revokedAt = iso();
        const name = await repo.revokeApiKey(trx, keyId, revokedAt, ctx?.orgId);
        if (name === null) return false;
        if (ctx) {
          await deps.audit?.record(trx, ctx, {
            action: 'key.revoked',
            target: { type: 'key', id: keyId },
            changes: { revokedAt: { from: null, to: revokedAt } },
          });
        }
        return true;
      });
    },

    /**
     * The /v1 credential check, read from the store on every call so a revocation, a downgrade or a
     * deleted organization takes effect on the very next request. Null for a missing, malformed, unknown
     * or revoked key; a refusal (saying why) for a live key whose organization's plan lacks the API.
     */
    async authenticateApiKey(authorization: string | undefined): Promise<KeyContext | KeyRefusal | null> {
      const match = authorization === undefined ? null : /^Bearer (\S+)$/.exec(authorization);
      const key = match?.[1];
      if (!key || !API_KEY_PATTERN.test(key)) return null;
      const hash = sha256Hex(key);
      const row = await repo.findLiveKeyByHash(hash);
      if (!row || !timingSafeEqual(Buffer.from(row.keyHash), Buffer.from(hash))) return null;
      const tier = row.tier as Tier;
      // A person's key lives while they hold a seat that may hold keys: checked on every call, beside
      // the revocation on removal, so no path that forgot to revoke leaves a key working.
      if (!row.orgOwned && !(isRole(row.makerRole) && atLeast(row.makerRole, KEY_HOLDER_ROLE))) return null;
      if (!hasFeature(tier, 'api')) return { refused: planLacksApiMessage(tier) };
      touch(row.keyId);
      return {
        orgId: row.orgId,
        tier,
        features: featuresOf(tier),
        keyId: row.keyId,
        scopes: row.scopes,
        actor: { type: 'key', id: row.keyId, label: row.name },
        createdBy: row.createdBy,
        orgOwned: row.orgOwned,
      };
    },
  };
}
