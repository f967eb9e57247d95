import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import type { Kysely } from 'kysely';
import { SESSION_COOKIE } from '../../src/http/session-auth.js';
import { redirectUriOf, type SocialDb, type SocialDeps, socialDb } from '../../src/social/deps.js';
import type { OrgContext } from '../../src/tenancy/context.js';
import { featuresOf, type Tier } from '../../src/tenancy/plans.js';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import type { StoreKind } from '../helpers/stores.js';

/**
 * The hosted service built through the composition root (startHosted), on a clock the tests move, listening
 * on loopback for the fake provider's webhook deliveries; the fake stands in for Instagram's API, consent
 * page and webhooks. Dashboard calls carry a real session cookie of the organization's owner.
 */

export const CRON_SECRET = 'cron-secret-for-tests';
export const VERIFY_TOKEN = 'verify-token-for-tests';

export interface SocialHarness {
  /** The hosted app (the same as hosted.app). */
  app: FastifyInstance;
  hosted: HostedHarness;
  fake: FakeSocialProvider;
  /** The social deps the root made, for a second instance's intake or sweep on the same store. */
  deps: SocialDeps;
  /** The social tables, typed, for tests that arrange rows directly. */
  db: Kysely<SocialDb>;
  /** The root's webhook intake: `drain` waits until every delivery taken is handled. */
  intake: { drain(): Promise<void> };
  webhookUrl: string;
  org(tier: Tier): Promise<{ orgId: string; apiKey: string; ctx: OrgContext }>;
  /** A dashboard call as the organization's owner (a fresh session each call), or with none for null. */
  as(orgId: string | null, options: InjectOptions): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
  /** Changes the plan, as the session sees it on the next call. */
  setTier(orgId: string, tier: Tier): Promise<void>;
  /** Moves the service's clock, every service's (the fake's is moved with fake.advance). */
  advance(ms: number): void;
  close(): Promise<void>;
}

export async function startSocial(
  kind: StoreKind,
  options: { flagsOff?: string[]; provisioned?: boolean; cron?: boolean; verifyToken?: string } = {},
): Promise<SocialHarness> {
  const fake = await new FakeSocialProvider().start();
  const provisioned = options.provisioned ?? true;
  const verifyToken = 'verifyToken' in options ? options.verifyToken : VERIFY_TOKEN;
  const env: Record<string, string> = {
    SOCIAL_APP_MODE: 'development',
    SOCIAL_AUTHORIZE_BASE: fake.origin,
    SOCIAL_OAUTH_BASE: fake.origin,
    SOCIAL_API_BASE: fake.origin,
    ...(provisioned
      ? {
          SOCIAL_APP_ID: fake.appId,
          SOCIAL_APP_SECRET: fake.appSecret,
          TOKEN_VAULT_KEY: randomBytes(32).toString('base64'),
        }
      : {}),
    ...(verifyToken === undefined ? {} : { SOCIAL_VERIFY_TOKEN: verifyToken }),
    ...(options.cron === false ? {} : { CRON_SECRET }),
    ...(options.flagsOff ? { FLAGS_OFF: options.flagsOff.join(',') } : {}),
  };
  let offset = 0;
  const hosted = await startHosted(kind, env, { now: () => Date.now() + offset });
  const address = await hosted.app.listen({ port: 0, host: '127.0.0.1' });
  const owners = new Map<string, string>();

  return {
    app: hosted.app,
    hosted,
    fake,
    deps: hosted.social.deps,
    db: socialDb(hosted.testStore.store),
    intake: { drain: () => hosted.social.drain() },
    webhookUrl: `${address}/api/public/social/webhook`,
    async org(tier) {
      const { orgId, userId, apiKey } = await hosted.owner(tier);
      owners.set(orgId, userId);
      return { orgId, apiKey, ctx: { orgId, tier, features: featuresOf(tier) } };
    },
    async as(orgId, inject) {
      const userId = orgId ? owners.get(orgId) : undefined;
      if (orgId && !userId) throw new Error(`no owner for ${orgId}`);
      // A session opened now on the service's clock: a test that moves the clock by weeks stays signed in.
      const cookie = userId
        ? `${SESSION_COOKIE}=${await hosted.accounts.openSession(userId, orgId ?? undefined)}`
        : null;
      return hosted.api(cookie, inject);
    },
    async setTier(orgId, tier) {
      await hosted.accounts.setTier(orgId, tier);
    },
    advance(ms) {
      offset += ms;
    },
    async close() {
      await hosted.close();
      await fake.stop();
    },
  };
}

export { redirectUriOf };
