import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UA } from '../helpers/user-agents.js';
import {
  browserSkipReason,
  fitsWidth,
  logIn,
  openPage,
  startDashboardServer,
  until,
  useDashboard,
} from './harness.js';

/**
 * Analytics pages against real traffic: taps go through the real short link (escape page for an
 * Instagram in-app browser, 302 for desktop), outcomes through the real beacon, and the click buffer's
 * flush, then the pages must show exactly those numbers.
 */

const shots = process.env.SHOTS;
async function shot(page: Page, name: string) {
  if (!shots) return;
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: width < 600 ? 812 : 860 });
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
    expect(await fitsWidth(page)).toBe(true);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

/** The value of the stat card whose label is exactly `label`. */
const stat = (page: Page, label: string) =>
  page
    .locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) })
    .locator('.stat-value')
    .textContent();

describe.skipIf(browserSkipReason !== null)('dashboard: analytics pages with real taps', () => {
  const dash = useDashboard();

  /** One human visit of the short link; for an in-app browser, the escape page's tap token. */
  async function visit(slug: string, userAgent: string, country: string): Promise<string | null> {
    const response = await fetch(`${dash.server.url}/${slug}`, {
      headers: { 'user-agent': userAgent, 'cf-ipcountry': country },
      redirect: 'manual',
    });
    if (response.status === 302) return null;
    expect(response.status).toBe(200);
    const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(await response.text())?.[1];
    expect(token).toBeTruthy();
    return token ?? null;
  }
  async function report(token: string, outcome: 'opened' | 'browser' | 'broken') {
    const response = await fetch(`${dash.server.url}/api/public/tap`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, outcome }),
    });
    expect(response.status).toBe(204);
  }

  it('shows the exact taps, app-open rate and outcome split to a hero; totals and the upgrade to a sidekick', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const create = async (url: string, tags: string[] = []) => {
      const response = await page.request.post(`${dash.server.url}/api/links`, { data: { url, tags } });
      expect(response.status()).toBe(201);
      return (await response.json()) as { id: string; slug: string; shortUrl: string };
    };
    const video = await create('https://www.youtube.com/watch?v=dQw4w9WgXcQ', ['promo']);
    const other = await create('https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC');

    // Three Instagram taps on iPhone: two open the app, one stays in the browser. Two desktop visits, one
    // of them a scan of the link's QR code (its ?qr=1 marker).
    const tokens = [
      await visit(video.slug, UA.instagramIos, 'FR'),
      await visit(video.slug, UA.instagramIos, 'FR'),
      await visit(video.slug, UA.instagramIos, 'DE'),
    ];
    expect(await visit(video.slug, UA.desktopChrome, 'US')).toBeNull();
    expect(await visit(`${video.slug}?qr=1`, UA.desktopChrome, 'US')).toBeNull();
    await report(tokens[0] as string, 'opened');
    await report(tokens[1] as string, 'opened');
    await report(tokens[2] as string, 'browser');
    // The other link: one desktop visit, no outcomes.
    expect(await visit(other.slug, UA.desktopChrome, 'US')).toBeNull();

    const stats = await until(
      async () => (await page.request.get(`${dash.server.url}/api/links/${video.id}/stats`)).json(),
      (value) => value.total === 5 && value.outcomes.opened === 2 && value.outcomes.browser === 1,
    );
    expect(stats).toMatchObject({ total: 5, outcomes: { opened: 2, browser: 1, broken: 0 } });
    await until(
      async () => (await page.request.get(`${dash.server.url}/api/analytics`)).json(),
      (value) => value.total === 6,
    );

    // The link's own page.
    await page.goto(`${dash.server.url}/#/links/${video.id}/analytics`);
    await page.getByRole('heading', { name: 'Link analytics', level: 1 }).waitFor();
    await expect
      .poll(() => page.locator('.link-summary').textContent())
      .toContain('youtube.com/watch?v=dQw4w9WgXcQ');
    await page.locator('.stat').first().waitFor();
    expect(await stat(page, 'Clicks')).toBe('5');
    expect(await stat(page, 'App-open rate')).toBe('66.7%');
    expect(await stat(page, 'Opened the app')).toBe('2');
    expect(await stat(page, 'QR scans')).toBe('1');
    await expect.poll(() => page.getByRole('cell', { name: 'QR code', exact: true }).count()).toBe(1);
    const legend = page.locator('.outcome-legend');
    await expect.poll(() => legend.textContent()).toContain('Opened the app: 2 (66.7%)');
    await expect.poll(() => legend.textContent()).toContain('Stayed in browser: 1 (33.3%)');
    // Recent clicks: five rows, newest first, with the outcome of each.
    const rows = page.getByRole('table').last().locator('tbody tr');
    await until(
      () => rows.count(),
      (count) => count === 5,
    );
    await expect.poll(() => rows.count()).toBe(5);
    await expect.poll(() => rows.filter({ hasText: 'Opened the app' }).count()).toBe(2);
    await expect.poll(() => rows.filter({ hasText: 'Stayed in browser' }).count()).toBe(1);
    await expect.poll(() => rows.filter({ hasText: 'Instagram' }).count()).toBe(3);
    await expect
      .poll(() => page.getByRole('list', { name: 'Clicks by device' }).textContent())
      .toMatch(/iPhone \/ iPad\s*3.*Desktop\s*2/s);
    // The period picker rewrites the route; the same taps are inside 7 days.
    await page.getByText('7 days', { exact: true }).click();
    await page.waitForURL(/days=7/);
    // waitForURL returns on the URL change; the page re-renders on the hashchange event just after.
    expect(
      await until(
        () => page.locator('.stat-note').first().textContent(),
        (note) => note === 'Last 7 days',
      ),
    ).toBe('Last 7 days');
    expect(await stat(page, 'Clicks')).toBe('5');
    await shot(page, 'link-analytics-hero');

    // The organization-wide page.
    await page.goto(`${dash.server.url}/#/analytics`);
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await page.locator('.stat').first().waitFor();
    expect(await stat(page, 'Clicks')).toBe('6');
    expect(await stat(page, 'Links clicked')).toBe('2');
    expect(await stat(page, 'QR scans')).toBe('1');
    expect(await stat(page, 'App-open rate')).toBe('66.7%');
    await expect
      .poll(() => page.locator('.outcome-legend').textContent())
      .toContain('Opened the app: 2 (66.7%)');
    const perPlatform = page.getByRole('table', { name: 'App-open rate per platform' });
    await expect
      .poll(() => perPlatform.locator('tbody tr').first().textContent())
      .toMatch(/^YouTube\s*66\.7%\s*2\s*1\s*0$/);
    const top = page.getByRole('link', { name: `/${video.slug}` });
    await expect.poll(() => top.getAttribute('href')).toBe(`#/links/${video.id}/analytics`);
    // Export CSV: the dashboard twin answers the same rows, with the cookie only.
    const exportHref = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(exportHref).toMatch(/^\/api\/analytics\/export\?days=30/);
    const csv = await page.request.get(`${dash.server.url}${exportHref}`);
    expect(csv.status()).toBe(200);
    expect((await csv.text()).trimEnd().split('\r\n')).toHaveLength(7);
    await shot(page, 'analytics-hero');
    // The tag filter narrows every number to the tagged link, and the export follows it.
    await page.getByLabel('Tag').selectOption('promo');
    await page.waitForURL(/tag=promo/);
    expect(
      await until(
        () => stat(page, 'Clicks'),
        (value) => value === '5',
      ),
    ).toBe('5');
    expect(await stat(page, 'Links clicked')).toBe('1');
    await expect
      .poll(() => page.getByRole('link', { name: 'Export CSV' }).getAttribute('href'))
      .toContain('tag=promo');
    await page.getByLabel('Tag').selectOption('');
    expect(
      await until(
        () => stat(page, 'Clicks'),
        (value) => value === '6',
      ),
    ).toBe('6');

    // Sidekick: the same totals, the upgrade notice instead of the split, no export.
    await dash.server.accounts.setTier(who.orgId, 'sidekick');
    await page.reload();
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    await page.locator('.stat').first().waitFor();
    expect(await stat(page, 'Clicks')).toBe('6');
    expect(await stat(page, 'App-open rate')).toBe('—');
    await expect
      .poll(() => page.locator('[data-feature="fullAnalytics"]').textContent())
      .toContain('Full analytics is part of Hero and Legend. You are on Sidekick.');
    await expect.poll(() => page.locator('.outcome-legend').count()).toBe(0);
    await expect.poll(() => page.getByRole('link', { name: 'Export CSV' }).count()).toBe(0);
    await shot(page, 'analytics-sidekick');
    await page.goto(`${dash.server.url}/#/links/${video.id}/analytics`);
    await page.getByRole('heading', { name: 'Link analytics', level: 1 }).waitFor();
    await page.locator('.stat').first().waitFor();
    expect(await stat(page, 'Clicks')).toBe('5');
    expect(await stat(page, 'App-open rate')).toBe('—');
    await page.locator('[data-feature="fullAnalytics"]').waitFor();
    await expect.poll(() => page.locator('.outcome-legend').count()).toBe(0);
    await expect.poll(() => page.getByRole('heading', { name: 'Recent clicks' }).count()).toBe(0);
    await shot(page, 'link-analytics-sidekick');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a link without outcomes shows a dash and the reason, never 0%', async () => {
    const who = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const response = await page.request.post(`${dash.server.url}/api/links`, {
      data: {
        url: 'https://example.com/a',
        ab: [
          { u: 'https://example.com/a', w: 1 },
          { u: 'https://example.com/b', w: 3 },
        ],
      },
    });
    expect(response.status()).toBe(201);
    const link = await response.json();
    expect(await visit(link.slug, UA.desktopChrome, 'US')).toBeNull();
    await until(
      async () => (await page.request.get(`${dash.server.url}/api/links/${link.id}/stats`)).json(),
      (value) => value.total === 1,
    );
    await page.goto(`${dash.server.url}/#/links/${link.id}/analytics`);
    await page.locator('.stat').first().waitFor();
    expect(await stat(page, 'Clicks')).toBe('1');
    expect(await stat(page, 'App-open rate')).toBe('—');
    await expect
      .poll(() => page.locator('.stat', { hasText: 'App-open rate' }).locator('.stat-note').textContent())
      .toBe('no tap has reported an outcome yet');
    // The A/B test: both variants, weights as shares, no open rate yet (a dash, never 0%).
    const variants = page.getByRole('heading', { name: 'A/B test' }).locator('xpath=ancestor::section');
    await expect.poll(() => variants.locator('tbody tr').count()).toBe(2);
    const cells = await variants.locator('tbody tr').allTextContents();
    expect(cells[0]).toContain('https://example.com/a');
    expect(cells[0]).toContain('25%');
    expect(cells[1]).toContain('75%');
    expect(cells.every((row) => row.includes('—'))).toBe(true);
    await shot(page, 'link-analytics-ab');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says calmly that analytics is not connected, with no charts, when ANALYTICS=off', async () => {
    const off = await startDashboardServer({ ANALYTICS: 'off' });
    try {
      const who = await off.user('hero');
      const { page, errors, context } = await openPage(dash.browser);
      await logIn(page, off.url, who);
      await page.goto(`${off.url}/#/analytics`);
      await expect
        .poll(() => page.getByRole('status').filter({ hasText: 'not connected' }).textContent())
        .toContain('Analytics is not connected on this server');
      await expect.poll(() => page.locator('.stat, .chart, .barlist').count()).toBe(0);
      await expect.poll(() => page.getByRole('link', { name: 'Export CSV' }).count()).toBe(0);
      await shot(page, 'analytics-off');
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await off.close();
    }
  });
});
