import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UA_CORPUS } from '../core/ua-corpus.js';
import { browserSkipReason, logIn, openPage, until, useDashboard } from './harness.js';

/**
 * Issue #32, item 3: the analytics pages say click, tap and outcome as docs/analytics.md defines them, show
 * one app-open rate per page (the same denominator in the headline, the per-platform table and the
 * heat-map, written beside it), never call a desktop click a tap, and say "sampled estimates" only when the
 * API answers `sampled: true`, with what it means. Real visits through the real short link: desktop clicks
 * (plain redirects) and in-app taps (escape pages) with outcomes through the real beacon.
 */

const ua = (name: string) => {
  const found = UA_CORPUS.find((entry) => entry.name === name);
  if (!found) throw new Error(`no user agent named ${name}`);
  return found.ua;
};

/** The definition the dashboard writes beside every app-open rate (web/src/pages/analytics/shared.tsx). */
const OPEN_RATE_MEANS = 'taps that opened the app ÷ taps that reported an outcome';

async function stats(page: Page): Promise<Record<string, { value: string; note: string }>> {
  return page.locator('.stats .stat').evaluateAll((cells) =>
    Object.fromEntries(
      cells.map((cell) => [
        cell.querySelector('.stat-label')?.textContent ?? '',
        {
          value: cell.querySelector('.stat-value')?.textContent ?? '',
          note: cell.querySelector('.stat-note')?.textContent ?? '',
        },
      ]),
    ),
  );
}

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

/** Every "N tap(s)" the page writes, as numbers. */
async function tapCounts(page: Page): Promise<number[]> {
  const text = (await page.locator('main').textContent()) ?? '';
  return [...text.matchAll(/([\d,]+)\s+taps?\b/gi)].map((match) => Number(match[1]?.replace(/,/g, '')));
}

/** Every sentence that defines a rate (has a ÷) on the page. */
async function definitions(page: Page): Promise<string[]> {
  const text = (await page.locator('main').textContent()) ?? '';
  return [...text.matchAll(/[^.:()]*÷[^.()]*/g)].map((match) => match[0].trim());
}

describe.skipIf(browserSkipReason !== null)('dashboard: the analytics words (issue #32, 3)', () => {
  const dash = useDashboard();

  async function visit(slug: string, userAgent: string): Promise<string | null> {
    const response = await fetch(`${dash.server.url}/${slug}`, {
      headers: { 'user-agent': userAgent },
      redirect: 'manual',
    });
    if (response.status === 302) return null;
    expect(response.status).toBe(200);
    return /<meta name="linkhop-tap" content="([^"]+)">/.exec(await response.text())?.[1] ?? null;
  }
  async function report(token: string | null, outcome: 'opened' | 'browser') {
    const response = await fetch(`${dash.server.url}/api/public/tap`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ token, outcome }),
    });
    expect(response.status).toBe(204);
  }

  it('clicks, taps and one app-open rate on the workspace and the link page; sampled only when the API says so', async () => {
    const who = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const created = await page.request.post(`${dash.server.url}/api/links`, {
      data: { url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ', slug: 'words-video' },
    });
    expect(created.status()).toBe(201);
    const link = (await created.json()) as { id: string; slug: string };

    // Three desktop clicks: plain redirects, no escape page, so no taps.
    for (const name of ['Chrome Windows', 'Safari macOS', 'Firefox Linux'])
      expect(await visit(link.slug, ua(name))).toBeNull();
    // Instagram on Android: five taps, one reports that the app opened (the 1-of-5 cell).
    const android = [];
    for (let i = 0; i < 5; i++) android.push(await visit(link.slug, ua('Instagram Android')));
    expect(android.every(Boolean)).toBe(true);
    await report(android[0] as string, 'opened');
    // Instagram on iPhone: two taps, both report, one opened.
    const iphone = [await visit(link.slug, ua('Instagram iOS')), await visit(link.slug, ua('Instagram iOS'))];
    await report(iphone[0] as string, 'opened');
    await report(iphone[1] as string, 'browser');
    await until(
      async () => (await page.request.get(`${dash.server.url}/api/analytics?days=30`)).json(),
      (value) => value.total === 10 && value.outcomes.opened + value.outcomes.browser === 3,
    );

    for (const where of ['/analytics', `/links/${link.id}/analytics`]) {
      await page.goto(`${dash.server.url}/#${where}`);
      await page.getByRole('heading', { name: 'App-open rate by in-app browser' }).waitFor();
      await expect.poll(() => heatRows(page)).toHaveLength(1);

      // Ten clicks (three desktop, seven taps), called clicks; the rate is 2 opened of 3 reported.
      const shown = await stats(page);
      expect(shown.Clicks?.value, where).toBe('10');
      expect(shown.Taps, where).toBeUndefined();
      expect(shown['App-open rate'], where).toEqual({
        value: '66.7%',
        note: `${OPEN_RATE_MEANS} (3 reported)`,
      });
      // The heat-map uses the same denominator: Android 1 of 1 reported (not 1 of 5 served), iOS 1 of 2.
      expect(await heatRows(page), where).toEqual([
        ['Instagram', '50% 2 taps · 2 reported', '100% 5 taps · 1 reported'],
      ]);
      // Every "N taps" on the page counts escape pages, never the desktop clicks: 2, 5 (and no 10, no 3).
      expect(
        (await tapCounts(page)).sort((a, b) => a - b),
        where,
      ).toEqual([2, 5]);
      // One definition, written wherever a rate is explained.
      const defined = await definitions(page);
      expect(defined.length, where).toBeGreaterThanOrEqual(2);
      for (const sentence of defined) expect(sentence, where).toContain(OPEN_RATE_MEANS);
      expect(await page.locator('main').textContent(), where).not.toContain('escape pages served');

      // Sampled: said once, with its meaning one click away.
      const sampled = page.locator('details.an-sampled');
      await expect.poll(() => sampled.count(), { message: where }).toBe(1);
      expect(await sampled.locator('summary').textContent()).toBe('Sampled estimates: read them as trends');
      expect(await sampled.locator('p').isVisible()).toBe(false);
      await sampled.locator('summary').click();
      expect(await sampled.locator('p').textContent()).toContain('does not promise an audit-exact count');
      expect(await sampled.locator('p').textContent()).toContain('docs/analytics.md');
    }

    // The link page's recent clicks list every click, desktop ones included, as clicks.
    await page.getByRole('heading', { name: 'Recent clicks' }).waitFor();
    const recent = page.getByRole('heading', { name: 'Recent clicks' }).locator('xpath=ancestor::section[1]');
    await expect.poll(() => recent.locator('tbody tr').count()).toBe(10);
    expect(await recent.locator('tbody tr', { hasText: 'Desktop' }).count()).toBe(3);

    // The links list shows a rate too: the same one, said the same way, and its clicks are clicks.
    await page.goto(`${dash.server.url}/#/links`);
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.lk-cell-num').first().textContent()).toContain('10');
    expect(await page.locator('.lk-cell-num').nth(1).textContent()).toContain('67 %');
    expect(await page.locator('.lk-table-note').textContent()).toContain(`app-open rate: ${OPEN_RATE_MEANS}`);

    // An answer that does not say `sampled: true` gets no "sampled" note.
    await page.route('**/api/analytics?**', async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as Record<string, unknown>;
      await route.fulfill({ response, json: { ...body, sampled: false } });
    });
    await page.goto(`${dash.server.url}/#/analytics?days=7`);
    await expect.poll(async () => (await stats(page)).Clicks?.value).toBe('10');
    expect(await page.locator('details.an-sampled').count()).toBe(0);
    expect(await page.locator('main').textContent()).not.toMatch(/sampled/i);
    expect(errors).toEqual([]);
    await context.close();
  });
});
