import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { createAccountService } from '../../src/accounts/service.js';
import { createSignupService, type SignupLogger } from '../../src/accounts/signup.js';
import { announceHosted, dashboardAddress } from '../../src/cli/serve.js';
import { createMemoryRateLimiter } from '../../src/http/rate-limit.js';
import { createMailer } from '../../src/net/mail.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';

/** Issue #32, item 4: the first account signed up on an empty instance is its operator's, on Legend. */

const until = async (check: () => boolean) => {
  for (let i = 0; i < 250 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
};

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`the first account on ${kind.name}`, () => {
    let testStore: TestStore;
    beforeEach(async () => {
      testStore = await kind.create();
    });
    afterEach(async () => testStore?.dispose());

    /** Sign-up as the server makes it, without SMTP: links land in `links`, keyed by email. */
    const signupOn = (signupTier?: 'sidekick' | 'hero') => {
      const repo = createAccountRepo(testStore.store);
      const accounts = createAccountService({
        repo,
        now: () => new Date(),
        uuid: randomUUID,
        ...(signupTier ? { signupTier } : {}),
      });
      const links = new Map<string, string>();
      const quiet = () => undefined;
      const logger: SignupLogger = {
        info: quiet,
        error: quiet,
        warn: (details) => {
          const { email, link } = details as { email?: string; link?: string };
          if (email && link) links.set(email, link);
        },
      };
      const signup = createSignupService({
        repo,
        accounts,
        baseUrl: 'https://lnk.example',
        mailer: createMailer({
          transport: null,
          from: 'linkhop <no-reply@lnk.example>',
          mailsPerAddress: createMemoryRateLimiter({ limit: 10, windowSeconds: 3600 }),
          logger,
        }),
        logger,
        now: () => new Date(),
      });
      const tokenFor = async (email: string) => {
        await signup.request({ email, password: 'password1', orgName: email });
        await until(() => links.has(email));
        return /token=([A-Za-z0-9_-]+)$/.exec(links.get(email) ?? '')?.[1] as string;
      };
      return { accounts, signup, tokenFor };
    };

    it('the first sign-up gets Legend; later ones SIGNUP_TIER, and the plan they will get is said before', async () => {
      const { accounts, signup, tokenFor } = signupOn('hero');
      expect(await accounts.signupPlan()).toEqual({ tier: 'legend', firstAccount: true });
      const first = await signup.confirm(await tokenFor('op@example.com'));
      expect(first.org.tier).toBe('legend');
      expect((await accounts.getOrganization(first.org.id)).tier).toBe('legend');
      expect(await accounts.signupPlan()).toEqual({ tier: 'hero', firstAccount: false });
      const second = await signup.confirm(await tokenFor('guest@example.com'));
      expect((await accounts.getOrganization(second.org.id)).tier).toBe('hero');
    });

    it('without SIGNUP_TIER, later sign-ups start on Sidekick', async () => {
      const { signup, tokenFor } = signupOn();
      const first = await signup.confirm(await tokenFor('op@example.com'));
      const second = await signup.confirm(await tokenFor('next@example.com'));
      expect([first.org.tier, second.org.tier]).toEqual(['legend', 'sidekick']);
    });

    it('two simultaneous first sign-ups: exactly one gets Legend', async () => {
      const { accounts, signup, tokenFor } = signupOn();
      const emails = ['a@example.com', 'b@example.com', 'c@example.com', 'd@example.com'];
      const tokens = await Promise.all(emails.map(tokenFor));
      const made = await Promise.all(tokens.map((token) => signup.confirm(token)));
      const tiers = await Promise.all(made.map(async (m) => (await accounts.getOrganization(m.org.id)).tier));
      expect(tiers.filter((tier) => tier === 'legend')).toHaveLength(1);
      expect(tiers.filter((tier) => tier === 'sidekick')).toHaveLength(3);
      // What each sign-up was told matches what was stored.
      expect(made.map((m) => m.org.tier)).toEqual(tiers);
    });

    it('the store decides the first account under a lock: a slow first decision still leaves one Legend', async () => {
      const repo = createAccountRepo(testStore.store);
      const make = (name: string, hold: boolean) => {
        const org = { id: randomUUID(), name, createdAt: new Date().toISOString() };
        const user = { id: randomUUID(), orgId: org.id, email: `${name}@example.com`, passwordHash: 'x' };
        return repo.insertAccount({ org, user: { ...user, createdAt: org.createdAt } }, async (first) => {
          // The first caller dawdles between reading "no organization" and inserting its own: without the
          // lock, the second reads the same empty table meanwhile and is made the operator too.
          if (hold) await new Promise((resolve) => setTimeout(resolve, 300));
          return first ? 'legend' : 'sidekick';
        });
      };
      const tiers = await Promise.all([make('slow', true), make('quick', false)]);
      expect(tiers.filter((tier) => tier === 'legend')).toHaveLength(1);
    });

    it('an instance whose operator made an organization at the command line has no operator sign-up left', async () => {
      const { accounts, signup, tokenFor } = signupOn();
      await accounts.createOrganization({ name: 'Made by CLI', tier: 'hero' });
      expect(await accounts.signupPlan()).toEqual({ tier: 'sidekick', firstAccount: false });
      const made = await signup.confirm(await tokenFor('late@example.com'));
      expect(made.org.tier).toBe('sidekick');
    });

    it('accounts made outside sign-up (invites, tests) never become the operator by being first', async () => {
      const { accounts } = signupOn();
      const made = await accounts.createAccount({
        email: 'made@example.com',
        passwordHash: 'x',
        orgName: 'Made',
      });
      expect(made.org.tier).toBe('sidekick');
    });

    it('the start lines say where to open the dashboard and, while empty, who becomes the operator', async () => {
      const lines: { details: object; message: string }[] = [];
      const log = { info: (details: object, message: string) => void lines.push({ details, message }) };
      const config = { baseUrl: 'http://localhost:0', port: 0 };
      const running = { app: { log }, store: testStore.store, config, url: 'http://0.0.0.0:41234' };
      await announceHosted(running);
      expect(lines.map((line) => line.message)).toEqual([
        'linkhop is serving on http://localhost:41234 — open it in a browser to sign up',
        'No organization yet: the first account signed up becomes the operator, on Legend (every feature, the API included)',
      ]);
      expect(lines[0]?.details).toEqual({ dashboard: 'http://localhost:41234' });
      await signupOn().accounts.createOrganization({ name: 'Someone', tier: 'sidekick' });
      lines.length = 0;
      await announceHosted(running);
      expect(lines.map((line) => line.message)).toEqual([
        'linkhop is serving on http://localhost:41234 — open it in a browser to sign up or log in',
      ]);
    });
  });
}

describe('the dashboard address in the start line', () => {
  it('is BASE_URL when set, else localhost at the port really listened on', () => {
    expect(dashboardAddress({ baseUrl: 'https://go.example.com', port: 3000 }, 'http://0.0.0.0:3000')).toBe(
      'https://go.example.com',
    );
    expect(dashboardAddress({ baseUrl: 'http://localhost:3000', port: 3000 }, 'http://0.0.0.0:3000')).toBe(
      'http://localhost:3000',
    );
    expect(dashboardAddress({ baseUrl: 'http://localhost:0', port: 0 }, 'http://127.0.0.1:39999')).toBe(
      'http://localhost:39999',
    );
  });
});

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`sign-up over HTTP without SMTP on ${kind.name}`, () => {
    let h: HostedHarness;
    afterAll(async () => h?.close());

    it('the page is told the real plan and that the link is in the log; the log has it on a line of its own', async () => {
      h = await startHosted(kind);
      const info = await h.app.inject({ method: 'GET', url: '/api/auth/signup' });
      expect(info.statusCode).toBe(200);
      expect(info.json()).toMatchObject({
        tier: 'legend',
        planName: 'Legend',
        firstAccount: true,
        linkCap: 100_000,
        delivery: 'server_log',
      });
      expect(info.json().features.api).toBe(true);

      const answer = await h.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        headers: { 'content-type': 'application/json' },
        payload: { email: 'Owner@Example.com', password: 'password1', orgName: 'Home' },
      });
      expect(answer.statusCode).toBe(202);
      expect(answer.json()).toEqual({
        status: 'confirmation_sent',
        delivery: 'server_log',
        message:
          "This server has no SMTP configured, so the confirmation link for owner@example.com is in the server's log. " +
          'Open it within 24 hours to finish creating your workspace.',
      });
      await until(() => h.logged.some((line) => typeof line.link === 'string'));
      const line = h.logged.find((entry) => typeof entry.link === 'string') as Record<string, string>;
      expect(line.email).toBe('owner@example.com');
      expect(line.link).toMatch(/^https:\/\/lnk\.example\/#\/signup\/confirm\?token=[A-Za-z0-9_-]{43}$/);
      expect(line.msg).toBe(
        `Sign-up confirmation link for owner@example.com (no SMTP configured, so it is printed here): ${line.link}`,
      );
      const token = /token=(.+)$/.exec(String(line.link))?.[1];
      const confirmed = await h.app.inject({
        method: 'POST',
        url: '/api/auth/signup/confirm',
        headers: { 'content-type': 'application/json' },
        payload: { token },
      });
      expect(confirmed.statusCode).toBe(201);
      expect(confirmed.json().org).toMatchObject({ name: 'Home', tier: 'legend' });
      expect(confirmed.json().features.api).toBe(true);

      // The next sign-up would start on Sidekick, whose analytics has no app-open tracking.
      const after = (await h.app.inject({ method: 'GET', url: '/api/auth/signup' })).json();
      expect(after).toMatchObject({
        tier: 'sidekick',
        planName: 'Sidekick',
        firstAccount: false,
        linkCap: 25,
      });
      expect(after.features.fullAnalytics).toBe(false);
      expect(after.features.linkInBio).toBe(true);
    });
  });

  describe.skipIf(kind.skipReason !== null)(`a valid key on a plan without the API, on ${kind.name}`, () => {
    let h: HostedHarness;
    afterAll(async () => h?.close());

    it('keeps its 401 unauthorized, with a message naming the plans; a mistyped key keeps the generic one', async () => {
      h = await startHosted(kind);
      for (const [tier, name] of [
        ['sidekick', 'Sidekick'],
        ['hero', 'Hero'],
      ] as const) {
        const { apiKey } = await h.org(tier);
        const response = await h.v1(apiKey, { method: 'GET', url: '/v1/me' });
        expect(response.statusCode).toBe(401);
        expect(response.json()).toEqual({
          error: 'unauthorized',
          message: `This key's organization is on ${name}; the API is part of Legend`,
        });
        expect(response.headers['x-ratelimit-limit']).toBeDefined();
        const mistyped = await h.v1(`${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}`, {
          method: 'GET',
          url: '/v1/me',
        });
        expect(mistyped.statusCode).toBe(401);
        expect(mistyped.json()).toEqual({ error: 'unauthorized', message: 'A valid API key is required' });
      }
      const { apiKey, orgId } = await h.org('hero');
      await h.accounts.setTier(orgId, 'legend');
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/me' })).statusCode).toBe(200);
    });
  });
}
