import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSocialProvider } from '../fakes/social-provider.js';
import { LOW_CONTRAST } from './contrast.js';
import { type Demo, fakeProviderEnv, seedDemo } from './demo.js';
import {
  browserSkipReason,
  type DashboardServer,
  launchBrowser,
  logIn,
  openPage,
  startDashboardServer,
} from './harness.js';

/**
 * Every dashboard page, on a seeded workspace, at desktop and phone widths: each renders its heading,
 * throws nothing, and never scrolls the page sideways. With SCREENSHOTS_DIR set (npm run screenshots)
 * the same tour writes the README's screenshots.
 */

const shots = process.env.SCREENSHOTS_DIR;
const WIDTHS = [1280, 375] as const;

const PAGES = (demo: Demo): [name: string, hash: string][] => {
  const video = demo.links.find((link) => link.slug === 'new-video')?.id;
  const single = demo.links.find((link) => link.slug === 'single')?.id;
  return [
    ['links', '/links'],
    ['link-new', '/links/new'],
    ['link-edit', `/links/${video}`],
    ['link-analytics', `/links/${single}/analytics`],
    ['analytics', '/analytics'],
    ['domains', '/domains'],
    ['bio', '/bio'],
    ['media-kit', '/media-kit'],
    ['audience', '/audience'],
    ['broadcasts', '/broadcasts'],
    ['automations', '/automations'],
    ['webhooks', '/webhooks'],
    ['keys', '/keys'],
    ['settings', '/settings'],
  ];
};

async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page
    .locator('.loading')
    .first()
    .waitFor({ state: 'detached', timeout: 5000 })
    .catch(() => {});
}

/** The whole page as one tall viewport, so sticky bars and the 100vh sidebar sit where a person sees them. */
async function shoot(page: Page, file: string): Promise<void> {
  const viewport = page.viewportSize() ?? { width: 1280, height: 860 };
  const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
  await page.setViewportSize({ width: viewport.width, height: Math.max(height, viewport.height) });
  await page.screenshot({ path: join(shots as string, file) });
  await page.setViewportSize(viewport);
}

// Every visible form control and button has an accessible name (a label, aria-label or text).
const UNNAMED_CONTROLS = `[...document.querySelectorAll('input, select, textarea, button')]
  .filter((el) => el.type !== 'hidden' && el.offsetParent !== null)
  .filter((el) => !(el.labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')
    || (el.tagName === 'BUTTON' && el.textContent.trim())))
  .map((el) => el.outerHTML.slice(0, 120))`;

async function checkAndShoot(page: Page, name: string, width: number): Promise<void> {
  const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'));
  expect(overflow, `${name} at ${width}px scrolls sideways`).toBeLessThanOrEqual(0);
  expect(await page.evaluate(UNNAMED_CONTROLS), `${name}: controls without a name`).toEqual([]);
  expect(await page.evaluate(LOW_CONTRAST), `${name}: text below WCAG AA contrast`).toEqual([]);
  if (shots) await shoot(page, `dashboard-${name}-${width}.png`);
}

describe.skipIf(browserSkipReason !== null)('dashboard tour: every page on a seeded workspace', () => {
  let server: DashboardServer;
  let browser: Browser;
  let fake: FakeSocialProvider;
  let demo: Demo;
  beforeAll(async () => {
    if (shots) mkdirSync(shots, { recursive: true });
    const provider = await fakeProviderEnv();
    fake = provider.fake;
    server = await startDashboardServer(provider.env);
    demo = await seedDemo(server, fake);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await fake?.stop();
  });

  for (const width of WIDTHS) {
    it(`logged-out pages at ${width}px`, async () => {
      const { page, errors, context } = await openPage(browser, width);
      for (const [name, hash] of [
        ['landing', '/'],
        ['login', '/login'],
        ['signup', '/signup'],
      ] as const) {
        await page.goto(`${server.url}/#${hash}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await settle(page);
        await checkAndShoot(page, name, width);
      }
      expect(errors).toEqual([]);
      await context.close();
    });

    it(`every logged-in page at ${width}px`, async () => {
      const { page, errors, context } = await openPage(browser, width);
      await logIn(page, server.url, demo);
      for (const [name, hash] of PAGES(demo)) {
        await page.goto(`${server.url}/#${hash}`);
        await page.getByRole('heading', { level: 1 }).first().waitFor();
        await settle(page);
        expect(await page.locator('.banner-error').count(), `${name} shows an error`).toBe(0);
        await checkAndShoot(page, name, width);
      }
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);

    it(`the published bio page and media kit at ${width}px`, async () => {
      const { page, context } = await openPage(browser, width);
      for (const [name, path] of [
        ['public-bio', `/@${demo.handle}`],
        ['public-media-kit', `/@${demo.handle}/media-kit`],
      ]) {
        const response = await page.goto(`${server.url}${path}`);
        expect(response?.status()).toBe(200);
        await checkAndShoot(page, name as string, width);
      }
      if (width === 1280) {
        // The media kit's share card, as a brand sees it.
        await page.setViewportSize({ width: 1200, height: 630 });
        const card = await page.goto(`${server.url}/api/public/media-kit/${demo.handle}/card.svg`);
        expect(card?.headers()['content-type']).toContain('image/svg+xml');
        if (shots) await page.screenshot({ path: join(shots, 'card-1200.png') });
      }
      await context.close();
    });
  }
});
