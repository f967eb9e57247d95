import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { destinationKey } from '../../src/health/key.js';
import { apiCall, browserSkipReason, fitsWidth, logIn, openPage, useDashboard } from './harness.js';

/**
 * Destination health in the dashboard (issue #33): the links list's "Destination down" badge and health
 * filter, the link page's health panel with its check history, and the fallback URL field (saved with a
 * PATCH, shown again after a reload; disabled with its upgrade label on Sidekick). The checker is off
 * (HEALTH_CHECKS=off): the test writes the destinations' state and checks in the store itself.
 */

interface ApiLink {
  id: string;
  slug: string;
  destination: string;
  fallbackUrl: string | null;
  health: { state: string; checkedAt: string | null; since: string | null; lastStatus: number | null };
}

const DOWN_URL = 'https://shop.example.com/sold-out-hoodie';
const OK_URL = 'https://example.org/still-fine';
const NEW_URL = 'https://example.net/brand-new';
const FALLBACK = 'https://shop.example.com/new-hoodies';

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const SINCE = minutesAgo(50);
const FAR = new Date(Date.now() + 30 * 86_400_000).toISOString();

/** The checks of the down destination, newest first, as the panel must list them. */
const CHECKS = [
  { checkedAt: minutesAgo(50), outcome: 'failed', status: 404, error: null, durationMs: 212 },
  { checkedAt: minutesAgo(70), outcome: 'failed', status: null, error: 'timeout', durationMs: 10_000 },
  { checkedAt: minutesAgo(85), outcome: 'failed', status: 404, error: null, durationMs: 198 },
  { checkedAt: minutesAgo(100), outcome: 'neutral', status: 429, error: null, durationMs: 87 },
  { checkedAt: minutesAgo(1500), outcome: 'ok', status: 200, error: null, durationMs: 1234 },
] as const;

describe.skipIf(browserSkipReason !== null)('dashboard: destination health in Chromium', () => {
  const dash = useDashboard({ HEALTH_CHECKS: 'off' });

  /** A destination's row, as the checker would leave it (and no check due for a month). */
  async function seedDestination(
    url: string,
    state: 'ok' | 'down',
    fields: { since: string; checkedAt: string; lastStatus: number | null; failures: number },
  ): Promise<void> {
    const row = {
      url,
      host: new URL(url).host,
      state,
      since: fields.since,
      failures: fields.failures,
      failing_since: fields.failures > 0 ? minutesAgo(85) : null,
      checked_at: fields.checkedAt,
      last_status: fields.lastStatus,
      last_error: null,
      next_check_at: FAR,
    };
    await dash.server.testStore.store.db
      .insertInto('destinations')
      .values({ id: destinationKey(url), ...row })
      .onConflict((oc) => oc.column('id').doUpdateSet(row))
      .execute();
  }

  const rowsOf = (page: Page) => page.locator('.lk-links-table tbody tr');

  it('a down destination is badged and filtered in the list; its page shows the health and the checks; the fallback URL saves', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);

    const down = await apiCall<ApiLink>(page, 'POST', '/links', { url: DOWN_URL, slug: 'hoodie' });
    const ok = await apiCall<ApiLink>(page, 'POST', '/links', { url: OK_URL, slug: 'fine' });
    const fresh = await apiCall<ApiLink>(page, 'POST', '/links', { url: NEW_URL, slug: 'fresh' });
    expect(fresh.health).toEqual({ state: 'unknown', checkedAt: null, since: null, lastStatus: null });

    await seedDestination(DOWN_URL, 'down', { since: SINCE, checkedAt: SINCE, lastStatus: 404, failures: 4 });
    await seedDestination(OK_URL, 'ok', {
      since: minutesAgo(3000),
      checkedAt: minutesAgo(20),
      lastStatus: 200,
      failures: 0,
    });
    await dash.server.testStore.store.db
      .insertInto('destination_checks')
      .values(
        CHECKS.map((check) => ({
          destination_id: destinationKey(DOWN_URL),
          checked_at: check.checkedAt,
          outcome: check.outcome,
          status: check.status,
          error: check.error,
          duration_ms: check.durationMs,
        })),
      )
      .execute();
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${down.id}`)).health).toEqual({
      state: 'down',
      checkedAt: SINCE,
      since: SINCE,
      lastStatus: 404,
    });

    // The list: a red "Destination down since <date>" on that link only, with a way to add a fallback.
    // Logging in showed the (then empty) list: load it again.
    await page.reload();
    const rows = rowsOf(page);
    await expect.poll(() => rows.count()).toBe(3);
    const sinceDate = await page.evaluate(
      (iso) =>
        new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }),
      SINCE,
    );
    const downRow = rows.filter({ hasText: '/hoodie' });
    const badge = downRow.locator('.lk-health-line .badge-bad');
    await expect.poll(() => badge.textContent()).toBe(`Destination down since ${sinceDate}`);
    expect(
      await downRow.getByRole('link', { name: 'Add a fallback URL to hoodie' }).getAttribute('href'),
    ).toBe(`#/links/${down.id}`);
    expect(await page.locator('.lk-health-line').count()).toBe(1);
    // The badge's red is the theme's "bad" colour on its soft background.
    const colour = await badge.evaluate((el) => getComputedStyle(el).color);
    expect(colour).toBe('rgb(180, 35, 24)');

    // The health filter drives ?health= in the page's URL and in the API call.
    const filter = page.getByLabel('Destination health');
    expect(await filter.locator('option').allTextContents()).toEqual([
      'All',
      'Down',
      'OK',
      'Not checked yet',
    ]);
    const asked = page.waitForRequest(
      (request) => request.url().includes('/api/links?') && request.url().includes('health=down'),
    );
    await filter.selectOption('down');
    await asked;
    await expect.poll(() => page.url()).toContain('health=down');
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('/hoodie');
    await filter.selectOption('ok');
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('/fine');
    await filter.selectOption('unknown');
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('/fresh');
    // A shared URL keeps the filter; Clear filters drops it.
    await page.goto(`${dash.server.url}/#/links?health=down`);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await filter.inputValue()).toBe('down');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(3);
    expect(await filter.inputValue()).toBe('');

    // The link's page: the warning above the form, and the panel under it.
    await page.getByRole('link', { name: /^Edit .*\/hoodie$/ }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await expect
      .poll(() => page.locator('.banner-warning').first().textContent())
      .toContain('The destination is down since');
    expect(await page.locator('.banner-warning').first().textContent()).toContain('Add a fallback URL below');
    const panel = page.locator('.lk-health-card');
    await panel.getByRole('heading', { name: 'Destination health', level: 2 }).waitFor();
    const fact = (name: string) =>
      panel
        .locator('.lk-facts div')
        .filter({ has: page.locator('dt', { hasText: name }) })
        .locator('dd');
    expect(await fact('State').textContent()).toBe('Down');
    expect(await fact('Last status').textContent()).toBe('HTTP 404');
    expect(await fact('Last checked').locator('time').getAttribute('datetime')).toBe(SINCE);
    expect(await fact('Since').locator('time').getAttribute('datetime')).toBe(SINCE);

    const table = panel.getByRole('table');
    await expect.poll(() => table.locator('tbody tr').count()).toBe(CHECKS.length);
    expect(await table.getByRole('columnheader').allTextContents()).toEqual([
      'Checked',
      'Outcome',
      'Answer',
      'Took',
    ]);
    expect(await table.locator('caption').textContent()).toBe('The last 5 checks, newest first');
    const cells = await table
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      );
    expect(cells.map((row) => row.slice(1))).toEqual([
      ['Failed', 'HTTP 404', '212 ms'],
      ['Failed', 'Timed out', '10,000 ms'],
      ['Failed', 'HTTP 404', '198 ms'],
      ['No verdict', 'HTTP 429', '87 ms'],
      ['OK', 'HTTP 200', '1,234 ms'],
    ]);
    const times = await table
      .locator('tbody time')
      .evaluateAll((els) => els.map((el) => el.getAttribute('datetime')));
    expect(times).toEqual(CHECKS.map((check) => check.checkedAt));

    // The fallback URL: typed, saved with a PATCH of that field alone, shown again after a reload.
    const field = page.getByLabel('Fallback URL');
    expect(await field.isEnabled()).toBe(true);
    expect(await field.inputValue()).toBe('');
    await field.fill(FALLBACK);
    const patchRequest = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(JSON.parse((await patchRequest).postData() ?? '{}')).toEqual({ fallbackUrl: FALLBACK });
    await page.getByText('Changes saved').waitFor();
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${down.id}`)).fallbackUrl).toBe(FALLBACK);
    await expect
      .poll(() => page.locator('.banner-warning').first().textContent())
      .toContain('Visits go to the fallback URL');
    await page.reload();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await expect.poll(() => page.getByLabel('Fallback URL').inputValue()).toBe(FALLBACK);
    await expect.poll(() => panel.locator('tbody tr').count()).toBe(CHECKS.length);

    // A bad fallback is refused at the field.
    await page.getByLabel('Fallback URL').fill('not a url');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(() =>
        page
          .locator('.field-invalid')
          .filter({ has: page.getByLabel('Fallback URL') })
          .locator('.field-error')
          .textContent(),
      )
      .toBe('The fallback URL must be a full http(s) URL, e.g. https://example.com/similar-item');
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${down.id}`)).fallbackUrl).toBe(FALLBACK);

    // Back in the list, the down link says where its visits go now; the OK link's page says OK, no banner.
    await page.goto(`${dash.server.url}/#/links?health=down`);
    await expect.poll(() => rows.count()).toBe(1);
    await expect
      .poll(() => rows.first().locator('.lk-health-note').textContent())
      .toBe('Visits go to the fallback URL');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(3);
    await page.goto(`${dash.server.url}/#/links/${ok.id}`);
    await panel.getByRole('heading', { name: 'Destination health' }).waitFor();
    await expect.poll(() => fact('State').textContent()).toBe('OK');
    await expect.poll(() => panel.textContent()).toContain('No checks yet');
    expect(await page.locator('.banner-warning').count()).toBe(0);

    expect(errors).toEqual([]);
    await context.close();

    // A phone: the list with its badge and the link page with the history fit the width.
    const phone = await openPage(dash.browser, 375);
    await logIn(phone.page, dash.server.url, who);
    await phone.page.goto(`${dash.server.url}/#/links?health=down`);
    await expect.poll(() => rowsOf(phone.page).count()).toBe(1);
    await phone.page.locator('.lk-health-line .badge-bad').waitFor();
    expect(await fitsWidth(phone.page)).toBe(true);
    await phone.page.goto(`${dash.server.url}/#/links/${down.id}`);
    const phoneTable = phone.page.locator('.lk-health-card table');
    await expect.poll(() => phoneTable.locator('tbody tr').count()).toBe(CHECKS.length);
    expect(await fitsWidth(phone.page)).toBe(true);
    // The history table fits its card: no sideways scroll inside it either.
    const scrolls = await phone.page
      .locator('.lk-health-wrap')
      .evaluate((el) => el.scrollWidth > el.clientWidth + 1);
    expect(scrolls).toBe(false);
    expect(phone.errors).toEqual([]);
    await phone.context.close();
  });

  it('on Sidekick the fallback URL field is disabled with its upgrade label; health still shows', async () => {
    const who = await dash.server.user('sidekick');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const link = await apiCall<ApiLink>(page, 'POST', '/links', { url: 'https://example.com/sidekick-drop' });
    // The API refuses the field on this plan, as the label says.
    const refused = await apiCall<{ error: { code: string } } | { code: string }>(
      page,
      'PATCH',
      `/links/${link.id}`,
      {
        fallbackUrl: FALLBACK,
      },
    );
    expect(JSON.stringify(refused)).toContain('platform_targeting');

    await page.goto(`${dash.server.url}/#/links/${link.id}`);
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    const field = page.getByLabel('Fallback URL');
    await field.waitFor();
    expect(await field.isDisabled()).toBe(true);
    const label = page.locator('.lk-fallback .upgrade[data-feature="platformTargeting"]');
    await expect.poll(() => label.textContent()).toBe('★ Part of Hero and Legend');
    const summary = page.getByRole('region', { name: 'Features not on your plan' });
    await expect.poll(() => summary.textContent()).toContain('Device routing');
    // Health is for every plan.
    const panel = page.locator('.lk-health-card');
    await panel.getByRole('heading', { name: 'Destination health' }).waitFor();
    await expect.poll(() => panel.locator('.card-head .badge').textContent()).toBe('Not checked yet');
    await expect.poll(() => panel.textContent()).toContain('No checks yet');

    // The new-link page has the field locked too.
    await page.goto(`${dash.server.url}/#/links/new`);
    await page.getByRole('heading', { name: 'New link', level: 1 }).waitFor();
    expect(await page.getByLabel('Fallback URL').isDisabled()).toBe(true);
    expect(await page.locator('.lk-health-card').count()).toBe(0);

    expect(errors).toEqual([]);
    await context.close();
  });
});
