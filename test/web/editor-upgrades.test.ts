import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Feature } from '../../src/tenancy/plans.js';
import { apiCall, browserSkipReason, logIn, openPage, useDashboard } from './harness.js';

/**
 * The link editor on a plan that locks most of it (issue #32): the plan is explained once, in one notice
 * above the form, and each locked section carries a one-line label instead of the long sentence.
 * With SCREENSHOTS_DIR set, it writes the Sidekick editor's screenshot there.
 */

const shots = process.env.SCREENSHOTS_DIR;
const LONG = 'nothing to buy here';

/** Every locked section of a new link on Sidekick, its name in the summary, and its label. */
const NEW_LINK_LOCKED: [Feature, string][] = [
  ['customSlugs', 'Custom slugs'],
  ['customDomains', 'Custom domains'],
  ['folders', 'Folders'],
  ['pixelInjection', 'Ad pixels'],
  ['audienceCapture', 'Email capture'],
  ['platformTargeting', 'Device routing'],
  ['geoRouting', 'Country routing'],
  ['abTesting', 'A/B testing'],
  ['scheduledLinks', 'Scheduled destinations'],
  ['passwordLinks', 'Password links'],
  ['fullAnalytics', 'Full analytics'],
];

/**
 * Features that lock more than one section of a new link: device routing's plans also give the fallback
 * URL field (destination health), which shows disabled with its own label.
 */
const SECTIONS: Partial<Record<Feature, number>> = { platformTargeting: 2 };
const labelCount = NEW_LINK_LOCKED.reduce((sum, [feature]) => sum + (SECTIONS[feature] ?? 1), 0);

const occurrences = async (page: Page, text: string) =>
  (((await page.locator('body').textContent()) ?? '').match(new RegExp(text, 'g')) ?? []).length;

async function newLinkPage(page: Page, baseUrl: string): Promise<void> {
  await page.goto(`${baseUrl}/#/links/new`);
  await page.getByRole('heading', { name: 'New link', level: 1 }).waitFor();
  await page.getByLabel('Destination URL').waitFor();
}

describe.skipIf(browserSkipReason !== null)('dashboard: upgrade notices in the link editor', () => {
  const dash = useDashboard();

  it('on Sidekick, the new-link page explains the plan once and labels each locked section in one line', async () => {
    const who = await dash.server.user('sidekick');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await newLinkPage(page, dash.server.url);

    const summary = page.getByRole('region', { name: 'Features not on your plan' });
    await summary.waitFor();
    await expect.poll(() => occurrences(page, LONG)).toBe(1);
    const said = ((await summary.textContent()) ?? '').replace(/\s+/g, ' ');
    expect(said).toContain('You are on Sidekick.');
    expect(said).toContain(`${NEW_LINK_LOCKED.length} features on this page are not on your plan`);
    expect(said).toContain(
      'On this instance its operator sets each workspace’s plan: there is nothing to buy here.',
    );
    for (const [, name] of NEW_LINK_LOCKED) expect(said).toContain(name);
    expect(said).toContain('part of Hero and Legend');
    expect(await summary.getByRole('link', { name: 'How to move to Hero' }).getAttribute('href')).toBe(
      '#/settings',
    );
    // The summary sits above the form.
    const above = await page.evaluate(() => {
      const notice = document.querySelector('.upgrade-summary');
      const form = document.querySelector('.lk-editor-main');
      return Boolean(
        notice && form && notice.compareDocumentPosition(form) & Node.DOCUMENT_POSITION_FOLLOWING,
      );
    });
    expect(above).toBe(true);

    // One compact label per locked section, with the plans that have it, and nothing more.
    for (const [feature] of NEW_LINK_LOCKED) {
      const labels = page.locator(`.upgrade[data-feature="${feature}"]`);
      await expect.poll(() => labels.count()).toBe(SECTIONS[feature] ?? 1);
      for (const label of await labels.all()) {
        expect((await label.textContent())?.trim(), feature).toBe('★ Part of Hero and Legend');
        const box = await label.boundingBox();
        expect(box?.height ?? 0, `${feature} label is one line`).toBeLessThan(40);
      }
    }
    expect(await page.locator('.upgrade[data-feature]').count()).toBe(labelCount);
    // A locked section's title stays beside its label.
    const password = page.getByRole('region', { name: 'Password' });
    await expect.poll(() => password.locator('.upgrade[data-feature="passwordLinks"]').count()).toBe(1);

    if (shots) {
      const height = Number(await page.evaluate('document.documentElement.scrollHeight'));
      await page.setViewportSize({ width: 1280, height: Math.max(height, 860) });
      await page.screenshot({ path: join(shots, 'dashboard-link-new-sidekick-1280.png') });
    }
    expect(errors).toEqual([]);
    await context.close();
  });

  it('on Sidekick, a saved link’s page adds its own locked tools to the one notice', async () => {
    const who = await dash.server.user('sidekick');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const link = await apiCall<{ id: string }>(page, 'POST', '/links', { url: 'https://example.com/drop' });
    await page.goto(`${dash.server.url}/#/links/${link.id}`);
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    const summary = page.getByRole('region', { name: 'Features not on your plan' });
    await summary.waitFor();
    for (const [feature, name] of [
      ['qrCustomization', 'QR customization'],
      ['richFallback', 'Rich fallback page'],
    ] as const) {
      await expect.poll(() => summary.textContent()).toContain(name);
      await expect.poll(() => page.locator(`.upgrade[data-feature="${feature}"]`).count()).toBe(1);
    }
    await expect.poll(() => occurrences(page, LONG)).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a Legend workspace’s editor shows no upgrade notice at all', async () => {
    const who = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await newLinkPage(page, dash.server.url);
    await page.getByLabel('Custom slug').waitFor();
    expect(await page.locator('.upgrade').count()).toBe(0);
    expect(await occurrences(page, LONG)).toBe(0);

    const link = await apiCall<{ id: string }>(page, 'POST', '/links', { url: 'https://example.com/legend' });
    await page.goto(`${dash.server.url}/#/links/${link.id}`);
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Download SVG' }).waitFor();
    await page
      .getByText('Use the page’s preview')
      .or(page.getByRole('button', { name: 'Fetch again' }))
      .first()
      .waitFor();
    expect(await page.locator('.upgrade').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
