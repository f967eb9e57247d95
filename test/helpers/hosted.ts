import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import pino from 'pino';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { hashPassword } from '../../src/accounts/secrets.js';
import { type AccountService, createAccountService } from '../../src/accounts/service.js';
import { type Composed, type ComposeOptions, composeHosted } from '../../src/app.js';
import { createAuditRepo } from '../../src/audit/repo.js';
import { createAuditLog } from '../../src/audit/service.js';
import { parseConfig } from '../../src/config.js';
import { SESSION_COOKIE } from '../../src/http/session-auth.js';
import type { FastPath } from '../../src/redirect/fast-path.js';
import type { Tier } from '../../src/tenancy/plans.js';
import type { StoreKind, TestStore } from './stores.js';
import { UA } from './user-agents.js';

/** A hosted service on a real test store, driven through app.inject. */
export interface HostedHarness {
  app: FastifyInstance;
  accounts: AccountService;
  testStore: TestStore;
  /** Creates an organization at `tier` with a fresh API key. */
  org(tier: Tier): Promise<{ orgId: string; apiKey: string; keyId: string }>;
  /**
   * A dashboard user with a `sidekick` organization and a session cookie, made as a confirmed sign-up
   * makes them (test/accounts/signup.test.ts goes through the mailed link itself).
   */
  session(input: {
    email: string;
    orgName: string;
  }): Promise<{ cookie: string; orgId: string; userId: string }>;
  /**
   * An organization at `tier` as a person signs up for it and is then moved to that plan: its owner's
   * session (for /api) and an API key (for /v1, which answers only Legend).
   */
  owner(
    tier: Tier,
    name?: string,
  ): Promise<{ orgId: string; userId: string; cookie: string; apiKey: string }>;
  /** A dashboard call (/api) with that session cookie, sent as the dashboard sends it (its own origin). */
  api(cookie: string | null, options: InjectOptions): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
  /** The redirect's fast path, driven with a raw request (app.inject never meets it). */
  fastPath: FastPath;
  /** A desktop browser's visit of `slug` on the default host. */
  visit(slug: string): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
  /** A /v1 call with that key. */
  v1(apiKey: string, options: InjectOptions): Promise<Awaited<ReturnType<FastifyInstance['inject']>>>;
  /** The server's warnings and errors so far, as parsed JSON lines (invite links without SMTP land here). */
  logged: Record<string, unknown>[];
  /** Runs the link.expired sweep now instead of waiting for its timer. */
  sweepExpiry(): Promise<void>;
  /** Checks every destination due now (destination health), instead of waiting for the checker's timer. */
  checkDestinations(): Promise<void>;
  /** Runs the A/B auto-promote sweep now instead of waiting for its timer. */
  sweepAbTests(): Promise<void>;
  /** Sends every queued broadcast recipient now (with SMTP_URL; ComposeOptions.mailWorker runs it so). */
  drainMail(): Promise<void>;
  /** Instagram comment-to-DM as the root composed it: its deps and a wait for the webhook intake. */
  social: NonNullable<Composed['social']>;
  close(): Promise<void>;
}

export const BASE_URL = 'https://lnk.example';

/**
 * A store kind that hands out `testStore`, already open, instead of a fresh one: a second instance on the
 * same store (another plan of the config, a second server). Its close() leaves the store to its owner.
 */
export function onStore(kind: StoreKind, testStore: TestStore): StoreKind {
  return { ...kind, create: async () => ({ ...testStore, dispose: async () => {} }) };
}

/**
 * `options` as composeHosted takes them: what a test brings instead of the real thing (a DNS lookup, the
 * clock). The harness's own account service reads the same clock.
 */
export async function startHosted(
  kind: StoreKind,
  env: Record<string, string> = {},
  options: ComposeOptions = {},
): Promise<HostedHarness> {
  const testStore = await kind.create();
  const config = parseConfig(
    // No destination checks in the background unless a test asks (test/health drives them itself).
    { BASE_URL, SESSION_SECRET: 'test-session-secret-0123456789abcdef', HEALTH_CHECKS: 'off', ...env },
    'hosted',
  );
  const logged: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const composed: Composed = await composeHosted(config, testStore.store, logger, options);
  // As the CLI makes it: plan changes land in the audit log as the operator's.
  const clock = options.now ?? Date.now;
  const now = () => new Date(clock());
  const accounts = createAccountService({
    repo: createAccountRepo(testStore.store),
    now,
    uuid: randomUUID,
    audit: createAuditLog({ repo: createAuditRepo(testStore.store), now }),
  });
  async function session(input: { email: string; orgName: string }) {
    const passwordHash = await hashPassword('password1');
    const { token, org, userId } = await accounts.createAccount({ ...input, passwordHash });
    return { cookie: `${SESSION_COOKIE}=${token}`, orgId: org.id, userId };
  }
  return {
    app: composed.app,
    fastPath: composed.fastPath as FastPath,
    accounts,
    testStore,
    logged,
    async org(tier) {
      const { orgId } = await accounts.createOrganization({ name: `Org ${tier}`, tier });
      const { id, apiKey } = await accounts.mintApiKey(orgId);
      return { orgId, apiKey, keyId: id };
    },
    session,
    async owner(tier, name = `Org ${tier}`) {
      const made = await session({ email: `owner-${randomUUID()}@example.com`, orgName: name });
      if (tier !== 'sidekick') await accounts.setTier(made.orgId, tier);
      const { apiKey } = await accounts.mintApiKey(made.orgId);
      return { ...made, apiKey };
    },
    api(cookie, options) {
      const headers = { origin: BASE_URL, ...(cookie ? { cookie } : {}), ...(options.headers ?? {}) };
      return composed.app.inject({ ...options, headers });
    },
    visit: (slug) =>
      composed.app.inject({
        method: 'GET',
        url: `/${slug}`,
        headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
      }),
    v1(apiKey, options) {
      const headers = { authorization: `Bearer ${apiKey}`, ...(options.headers ?? {}) };
      return composed.app.inject({ ...options, headers });
    },
    sweepExpiry: () => composed.sweepExpiry?.() ?? Promise.resolve(),
    checkDestinations: () => composed.checkDestinations?.() ?? Promise.resolve(),
    sweepAbTests: () => composed.sweepAbTests?.() ?? Promise.resolve(),
    drainMail: () => composed.mail?.drain() ?? Promise.resolve(),
    social: composed.social as NonNullable<Composed['social']>,
    async close() {
      await composed.close();
      await testStore.dispose();
    },
  };
}
