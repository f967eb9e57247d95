import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UA_CORPUS } from '../core/ua-corpus.js';
import { LOW_CONTRAST } from './contrast.js';
import { browserSkipReason, fitsWidth, logIn, openPage, until, useDashboard } from './harness.js';

/**
 * The in-app browser heat-map on the analytics pages, against real taps: escape pages served through the
 * real short links to real in-app user agents, outcomes through the real beacon. The table must show
 * exactly those open rates (the dashboard's one definition: opened ÷ taps that reported) per in-app
 * browser and OS, with the taps and reports of each cell, tinted from red to green with the
 * values written in readable ink, and the platform filter must narrow it. With SCREENSHOTS_DIR set, the
 * card is saved for docs/analytics.md.
 */

const shots = process.env.SCREENSHOTS_DIR;
const ua = (name: string) => {
  const found = UA_CORPUS.find((entry) => entry.name === name);
  if (!found) throw new Error(`no user agent named ${name}`);
  return found.ua;
};

/** The heat-map's rows as `[in-app browser, iOS cell, Android cell]` texts. */
async function heatRows(page: Page): Promise<string[][]> {
  const table = page.getByRole('table', { name: 'App-open rate by in-app browser and OS' });
  await table.waitFor();
  return table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) =>
        [...row.querySelectorAll('th, td')].map((cell) =>
          [...cell.childNodes].map((node) => node.textContent?.trim() ?? '').join(' '),
        ),
      ),
    );
}

/** The cell's background as [r, g, b]. */
async function tint(page: Page, row: string, column: number): Promise<number[]> {
  const cell = page
    .getByRole('table', { name: 'App-open rate by in-app browser and OS' })
    .locator('tbody tr', { has: page.getByRole('rowheader', { name: row, exact: true }) })
    .locator('td')
    .nth(column);
  const colour = await cell.evaluate((element) => getComputedStyle(element).backgroundColor);
  return (colour.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
}

describe.skipIf(browserSkipReason !== null)('dashboard: the in-app browser heat-map with real taps', () => {
  const dash = useDashboard();

  async function tap(slug: string, userAgent: string, outcome?: 'opened' | 'browser' | 'broken') {
    const response = await fetch(`${dash.server.url}/${slug}`, {
      headers: { 'user-agent': userAgent },
      redirect: 'manual',
    });
    expect(response.status).toBe(200);
    const token = /<meta name="linkhop-tap" content="([^"]+)">/.exec(await response.text())?.[1];
    expect(token).toBeTruthy();
    if (!outcome) return;
    const report = await fetch(`${dash.server.url}/api/public/tap`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ token, outcome }),
    });
    expect(report.status).toBe(204);
  }

  it('shows open rates by in-app browser × OS, filters by platform, reads well, and hides below hero', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const create = async (url: string) => {
      const response = await page.request.post(`${dash.server.url}/api/links`, { data: { url } });
      expect(response.status()).toBe(201);
      return (await response.json()) as { id: string; slug: string };
    };
    const video = await create('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    const song = await create('https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC');

    // Instagram: 3 taps on iPhone (2 open the app), 1 on Android (fails). TikTok on Android: 2 taps on
    // the song, 1 opens, 1 never reports. Safari on iPhone: 1 tap on the song, opens.
    await tap(video.slug, ua('Instagram iOS'), 'opened');
    await tap(video.slug, ua('Instagram iOS'), 'opened');
    await tap(video.slug, ua('Instagram iOS'), 'browser');
    await tap(video.slug, ua('Instagram Android'), 'broken');
    await tap(song.slug, ua('TikTok Android'), 'opened');
    await tap(song.slug, ua('TikTok Android'));
    await tap(song.slug, ua('Safari iOS'), 'opened');
    await until(
      async () => (await page.request.get(`${dash.server.url}/api/analytics/escape`)).json(),
      (value) => value.cells.reduce((sum: number, cell: { taps: number }) => sum + cell.taps, 0) === 7,
    );

    await page.goto(`${dash.server.url}/#/analytics`);
    await page.getByRole('heading', { name: 'App-open rate by in-app browser' }).waitFor();
    // TikTok on Android: 1 of its 2 taps reported, and opened: 100 % of the reported, as the headline rate.
    expect(await heatRows(page)).toEqual([
      ['Instagram', '66.7% 3 taps · 3 reported', '0% 1 tap · 1 reported'],
      ['TikTok', '— no taps', '100% 2 taps · 1 reported'],
      ['Browser (no in-app)', '100% 1 tap · 1 reported', '— no taps'],
    ]);
    // Red for 0 %, green for 100 %, in between for 66.7 %.
    const [red0, green0] = (await tint(page, 'Instagram', 1)) as [number, number];
    const [red100, green100] = (await tint(page, 'Browser (no in-app)', 0)) as [number, number];
    const [red67, green67] = (await tint(page, 'Instagram', 0)) as [number, number];
    expect(red0).toBeGreaterThan(green0);
    expect(green100).toBeGreaterThan(red100);
    expect(green67).toBeGreaterThan(red67);
    expect(green67 - red67).toBeLessThan(green100 - red100);
    // Each strategy on its own row, as the API counts them.
    const api = (await (await page.request.get(`${dash.server.url}/api/analytics/escape`)).json()) as {
      cells: { inApp: string | null; taps: number }[];
    };
    const strategies = page.getByRole('table', {
      name: 'App-open rate per in-app browser, OS, platform and strategy',
    });
    await expect.poll(() => strategies.locator('tbody tr').count()).toBe(api.cells.length);
    await expect
      .poll(() => strategies.locator('tbody tr').first().textContent())
      .toMatch(/^Instagram\s*iOS\s*YouTube/);
    expect(await page.evaluate(LOW_CONTRAST), 'text below WCAG AA contrast').toEqual([]);
    if (shots) {
      await page.locator('.heat-card').screenshot({ path: `${shots}/dashboard-escape-heatmap-1280.png` });
    }

    // The platform filter: Spotify only, kept in the address so the view can be shared.
    await page.getByLabel('Platform', { exact: true }).selectOption('spotify');
    await page.waitForURL(/platform=spotify/);
    expect(
      await until(
        () => heatRows(page),
        (rows) => rows.length === 2,
      ),
    ).toEqual([
      ['TikTok', '— no taps', '100% 2 taps · 1 reported'],
      ['Browser (no in-app)', '100% 1 tap · 1 reported', '— no taps'],
    ]);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });

    // The link's own page: its taps only.
    await page.goto(`${dash.server.url}/#/links/${video.id}/analytics`);
    await page.getByRole('heading', { name: 'App-open rate by in-app browser' }).waitFor();
    expect(await heatRows(page)).toEqual([
      ['Instagram', '66.7% 3 taps · 3 reported', '0% 1 tap · 1 reported'],
    ]);

    // Sidekick: no heat-map, the upgrade notice instead.
    await dash.server.accounts.setTier(who.orgId, 'sidekick');
    await page.goto(`${dash.server.url}/#/analytics`);
    await page.locator('[data-feature="fullAnalytics"]').first().waitFor();
    await expect.poll(() => page.locator('.heat-card').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});
