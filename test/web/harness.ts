import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import pino from 'pino';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createAccountRepo } from '../../src/accounts/repo.js';
import { type AccountService, createAccountService } from '../../src/accounts/service.js';
import { type Composed, composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import type { Tier } from '../../src/tenancy/plans.js';
import { sqliteKind, type TestStore } from '../helpers/stores.js';

/**
 * End-to-end dashboard tests: the real hosted service (the built dashboard in dist/web, real HTTP, a real
 * SQLite store) driven by Debian's Chromium through playwright-core.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Why the browser suites are skipped here, or null when they run. `.ci/run` installs Chromium. */
export const browserSkipReason = existsSync(CHROMIUM)
  ? null
  : `${CHROMIUM} not found (apt-get install chromium): dashboard browser tests skipped`;
if (browserSkipReason) console.warn(`[linkhop tests] ${browserSkipReason}`);

export interface DashboardServer {
  url: string;
  accounts: AccountService;
  testStore: TestStore;
  /** An organization with a dashboard user, ready to log in. */
  user(tier: Tier): Promise<{ orgId: string; email: string; password: string }>;
  /** The newest invite link to `email`, from its line in the server log (this server has no SMTP). */
  inviteLink(email: string): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export async function startDashboardServer(env: Record<string, string> = {}): Promise<DashboardServer> {
  const testStore = await sqliteKind.create();
  const port = await freePort();
  // BASE_URL is the address the browser uses, so the dashboard's same-origin (CSRF) check holds.
  const url = `http://127.0.0.1:${port}`;
  const config = parseConfig(
    {
      BASE_URL: url,
      PORT: String(port),
      HOST: '127.0.0.1',
      SESSION_SECRET: 'e2e-session-secret-0123456789abcdef',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: '1',
      // A build of one's own (vite build --outDir DIR) while others rebuild dist/web.
      ...(process.env.DASHBOARD_DIR ? { DASHBOARD_DIR: process.env.DASHBOARD_DIR } : {}),
      ...env,
    },
    'hosted',
  );
  const logged: Record<string, unknown>[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const composed: Composed = await composeHosted(config, testStore.store, logger);
  await composed.app.listen({ port, host: '127.0.0.1' });
  const accounts = createAccountService({
    repo: createAccountRepo(testStore.store),
    now: () => new Date(),
    uuid: randomUUID,
  });
  return {
    url,
    accounts,
    testStore,
    async user(tier) {
      const email = `creator-${randomUUID().slice(0, 8)}@example.com`;
      const password = 'correct horse battery';
      const { orgId } = await accounts.createOrganization({ name: `Studio ${tier}`, tier, email, password });
      return { orgId, email, password };
    },
    async inviteLink(email) {
      const started = Date.now();
      for (;;) {
        const line = logged.findLast((entry) => entry.email === email && typeof entry.link === 'string');
        if (line) return line.link as string;
        if (Date.now() - started > 5000) throw new Error(`no invite link for ${email} in the server log`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async close() {
      await composed.close();
      await testStore.dispose();
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** A fresh browser context (its own cookies) at `width` px, with console errors collected. */
export async function openPage(
  browser: Browser,
  width = 1280,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({
    viewport: { width, height: width < 600 ? 812 : 860 },
    deviceScaleFactor: 1,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (message) => {
    // A 4xx the page asked for (a 401 probe, a 400 shown at a field) is logged by Chromium; not a bug.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
      errors.push(message.text());
    }
  });
  return { context, page, errors };
}

/** Logs in through the real form and waits for the links page. */
export async function logIn(
  page: Page,
  baseUrl: string,
  who: { email: string; password: string },
): Promise<void> {
  await page.goto(`${baseUrl}/#/login`);
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
}

/**
 * One server and one browser for a describe block, started before its tests and closed after:
 * `const dash = useDashboard(); ... dash.server.user('hero'); openPage(dash.browser)`.
 */
export function useDashboard(env: Record<string, string> | (() => Promise<Record<string, string>>) = {}): {
  readonly server: DashboardServer;
  readonly browser: Browser;
} {
  let server: DashboardServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startDashboardServer(typeof env === 'function' ? await env() : env);
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error('useDashboard: the server is not started yet (use it inside a test)');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('useDashboard: the browser is not started yet (use it inside a test)');
      return browser;
    },
  };
}

/** A same-origin dashboard call from inside the page: the session cookie and the CSRF-safe content type. */
export async function apiCall<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const response = await fetch(`/api${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return response.json();
    },
    { method, path, body },
  ) as Promise<T>;
}

/** True when the page does not scroll sideways (a phone layout that fits). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return Boolean(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'));
}

/** Reads until `ok` holds or about 10 s pass, and returns the last value (the caller asserts on it). */
export async function until<T>(read: () => Promise<T> | T, ok: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 200 && !ok(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
