import { describe, expect, it } from 'vitest';
import { LOW_CONTRAST } from './contrast.js';
import { apiCall, browserSkipReason, fitsWidth, logIn, openPage, useDashboard } from './harness.js';

/**
 * Bulk work in the dashboard (issue #34), in Chromium against the real service: 250 links over five pages,
 * every link matching selected, a tag added as a job followed to its end, then the audit log and the API
 * read back: one audit row per link, and the tag on all 250.
 */

interface Link {
  id: string;
  tags: string[];
}

const COUNT = 250;

describe.skipIf(browserSkipReason !== null)('dashboard: bulk actions in Chromium', () => {
  const dash = useDashboard();

  it('selects 250 links across pages, tags them as a job, and each link is tagged and audited once', async () => {
    const who = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);

    // 250 links, made through the API (the bulk create takes 100 a call).
    for (let from = 0; from < COUNT; from += 100) {
      const links = Array.from({ length: Math.min(100, COUNT - from) }, (_, i) => ({
        url: `https://example.com/bulk/${from + i}`,
      }));
      const made = await apiCall<{ results: Link[] }>(page, 'POST', '/links/bulk', { links });
      expect(made.results.filter((r) => r.id)).toHaveLength(links.length);
    }
    await page.reload();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Pages' }).getByText('1–50').waitFor();

    // A row, then the whole page, then every link matching (here: every live link).
    const rowBoxes = page.locator('tbody input[type="checkbox"]');
    expect(await rowBoxes.count()).toBe(50);
    await rowBoxes.first().check();
    await page.getByText('1 link selected').waitFor();
    await page.getByLabel('Select all links on this page').check();
    await page.getByText('50 links selected').waitFor();
    await page.getByRole('button', { name: `Select all ${COUNT} links matching this filter` }).click();
    await page.getByText(`${COUNT} links selected`).waitFor();

    // The bar works from the keyboard: type the tag, tab to Add tag, press Enter.
    await page.getByLabel('Tags to add or remove').fill('spring-sale');
    await page.getByLabel('Tags to add or remove').press('Tab');
    const asked = page.waitForResponse(
      (response) => response.url().endsWith('/api/bulk-actions') && response.request().method() === 'POST',
    );
    await page.keyboard.press('Enter');
    // More than 100 links: a job (202), whose progress the bar follows until it ends.
    expect((await asked).status()).toBe(202);
    await page.getByText(`Done: ${COUNT} changed, 0 already so, 0 failed.`).waitFor({ timeout: 60_000 });
    expect(await page.evaluate(LOW_CONTRAST)).toEqual([]);

    // The API shows the tag on every link.
    const tagged = await apiCall<{ links: Link[] }>(page, 'GET', '/links?tag=spring-sale');
    expect(tagged.links).toHaveLength(COUNT);
    // The audit log has one row per link, each a link.updated adding the tag.
    const perLink = new Map<string, number>();
    let cursor: string | null = null;
    do {
      const query: string = `/audit-log?action=link.updated&limit=200${cursor ? `&cursor=${cursor}` : ''}`;
      const log = await apiCall<{
        entries: { target: { id: string }; changes: { tags?: { to: string[] } } }[];
        nextCursor: string | null;
      }>(page, 'GET', query);
      for (const entry of log.entries) {
        expect(entry.changes.tags?.to).toContain('spring-sale');
        perLink.set(entry.target.id, (perLink.get(entry.target.id) ?? 0) + 1);
      }
      cursor = log.nextCursor;
    } while (cursor);
    expect(perLink.size).toBe(COUNT);
    expect([...perLink.values()].every((n) => n === 1)).toBe(true);

    // The list reads the tag back; on a phone the bar and the rows still fit.
    await page.getByRole('navigation', { name: 'Pages' }).getByText('1–50').waitFor();
    expect(await page.locator('tbody').getByRole('link', { name: 'spring-sale' }).count()).toBeGreaterThan(0);
    await page.getByLabel('Select all links on this page').check();
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await fitsWidth(page)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  }, 180_000);

  it('a plan without bulk changes says what unlocks them, and still exports the selection', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await apiCall(page, 'POST', '/links', { url: 'https://example.com/hero-one' });
    await page.reload();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await page.locator('tbody input[type="checkbox"]').first().check();
    await page.getByText('1 link selected').waitFor();
    await page.locator('.upgrade[data-feature="bulkCreate"]').waitFor();
    expect(await page.getByLabel('Tags to add or remove').count()).toBe(0);
    expect(await page.locator('.lk-bulk-actions').getByRole('button', { name: 'Archive' }).count()).toBe(0);
    const exported = await page.request.get(
      `${dash.server.url}${await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href')}`,
    );
    expect(exported.status()).toBe(200);
    expect(await exported.text()).toContain('https://example.com/hero-one');
    expect(errors).toEqual([]);
    await context.close();
  });
});
