import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import { type AppError, appError, featureError } from '../errors.js';
import type { LinkService } from '../links/service.js';
import type { Store } from '../store/database.js';
import type { DmAutomationTable, DmFiringTable, SocialAccountTable } from '../store/migrations/009-social.js';
import type { OrgContext } from '../tenancy/context.js';
import { createProviderClient, type ProviderClient } from './provider.js';
import { createTokenVault, isVaultKey, type TokenVault } from './vault.js';

/** What the social domain needs from the composition root, and the helpers its files share. */

export interface LinkClickStats {
  clicks: number;
  opened: number;
  appOpenRate: number | null;
}

export interface SocialDeps {
  store: Store;
  social: Config['social'];
  flagsOff: ReadonlySet<string>;
  baseUrl: string;
  /** Keys the HMAC that makes `state` (SESSION_SECRET is a good choice). */
  stateSecret: string;
  links: LinkService;
  now: () => Date;
  uuid: () => string;
  /** Where the consent page sends the browser back; must match the app's registered redirect URI. */
  redirectUri?: string;
  /** The link's click numbers over the stats window, or null when analytics is not configured. */
  linkStats?: (ctx: OrgContext, linkId: string) => Promise<LinkClickStats | null>;
  logger?: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** The audit log: each rule change's row in its transaction. */
  audit?: AuditLog;
}

export interface SocialDb {
  social_accounts: SocialAccountTable;
  dm_automations: DmAutomationTable;
  dm_firings: DmFiringTable;
  organizations: { id: string; name: string; tier: string; created_at: string };
}

export function socialDb(store: Store): Kysely<SocialDb> {
  return store.db as unknown as Kysely<SocialDb>;
}

export function redirectUriOf(deps: SocialDeps): string {
  return deps.redirectUri ?? `${deps.baseUrl.replace(/\/+$/, '')}/social/callback`;
}

/** Provider client and vault, or null when any of app id, app secret and vault key is missing. */
export function provisioned(deps: SocialDeps): { provider: ProviderClient; vault: TokenVault } | null {
  const { appId, appSecret, vaultKey } = deps.social;
  if (!appId || !appSecret || !vaultKey || !isVaultKey(vaultKey)) return null;
  return {
    provider: createProviderClient({ ...deps.social, appId, appSecret }),
    vault: createTokenVault({ current: vaultKey }),
  };
}

export function requireProvisioned(deps: SocialDeps) {
  const ready = provisioned(deps);
  if (!ready)
    throw appError('not_provisioned', 'The social provider app or the token vault key is not configured');
  return ready;
}

/** Creating, editing and connecting need the product flag and the plan. */
export function requireWrite(deps: SocialDeps, ctx: OrgContext): void {
  if (deps.flagsOff.has('dmAutomations')) throw appError('feature_disabled');
  if (!ctx.features.dmAutomations) throw featureError('dmAutomations');
}

export function stateFor(secret: string, orgId: string): string {
  return createHmac('sha256', secret).update(`linkhop social state\0${orgId}`).digest('base64url');
}

export function stateMatches(secret: string, orgId: string, state: string): boolean {
  const expected = Buffer.from(stateFor(secret, orgId));
  const given = Buffer.from(state);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e?.code === '23505' || /UNIQUE constraint failed/i.test(e?.message ?? '');
}

export function notFound(what: string): AppError {
  return appError('not_found', `No such ${what}`);
}
