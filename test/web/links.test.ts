import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { UA } from '../helpers/user-agents.js';
import { apiCall, browserSkipReason, fitsWidth, logIn, openPage, useDashboard } from './harness.js';

interface ApiLink {
  id: string;
  slug: string;
  shortUrl: string;
  destination: string;
  tags: string[];
  utm: Record<string, string> | null;
  routing: { ios?: string; geo?: Record<string, string> } | null;
  ab: { u: string; w: number }[] | null;
}

const linkIdOf = (page: Page) => /#\/links\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';

describe.skipIf(browserSkipReason !== null)('dashboard: the links pages in Chromium', () => {
  const dash = useDashboard();

  it('a hero creates a link with UTM and routing, finds it, edits it, archives it, and it still redirects', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);

    // An empty workspace invites the first link, and shows the plan cap.
    await page.getByRole('heading', { name: 'Create your first smart link' }).waitFor();
    await expect.poll(() => page.locator('.lk-cap-line').textContent()).toBe('0 of 1,000 live links on Hero');
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByRole('heading', { name: 'New link', level: 1 }).waitFor();

    await page.getByLabel('Destination URL').fill('https://example.com/spring-drop');
    await page.getByLabel('Custom slug').fill('spring-drop');
    await page.getByLabel('Tags').fill('launch, promo');
    await page.getByLabel('Tags').press('Enter');
    await page.getByText('UTM parameters').click();
    await page.getByLabel('UTM source').fill('instagram');
    await page.getByLabel('UTM campaign').fill('spring');
    await page.getByText('Device routing').click();
    await page.getByLabel('iPhone and iPad URL').fill('https://apps.apple.com/app/spring');
    await page.getByText('Country routing').click();
    await page.getByRole('button', { name: 'Add a country' }).click();
    await page.getByLabel('Country code, row 1').fill('de');
    await page.getByLabel('Country URL, row 1').fill('https://example.de/spring');
    await page.getByRole('button', { name: 'Create link' }).click();

    // After create: the edit page of the new link, with a success message, the short URL, QR and downloads.
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Link created');
    const id = linkIdOf(page);
    const created = await apiCall<ApiLink>(page, 'GET', `/links/${id}`);
    expect(created).toMatchObject({
      slug: 'spring-drop',
      destination: 'https://example.com/spring-drop',
      tags: ['launch', 'promo'],
      utm: { source: 'instagram', campaign: 'spring' },
      routing: { ios: 'https://apps.apple.com/app/spring', geo: { DE: 'https://example.de/spring' } },
      ab: null,
    });
    await expect
      .poll(() => page.locator('.lk-qr-preview img').getAttribute('src'))
      .toBe(`/api/links/${id}/qr?format=svg`);
    await expect
      .poll(() => page.getByRole('link', { name: 'Download PNG' }).getAttribute('href'))
      .toBe(`/api/links/${id}/qr?format=png`);
    expect(
      await page.locator('.lk-qr-preview img').evaluate((img: HTMLImageElement) => img.naturalWidth),
    ).toBeGreaterThan(0);

    // Another link, so the search has something to leave out.
    await apiCall(page, 'POST', '/links', { url: 'https://example.org/other', slug: 'other-thing' });
    await page.getByRole('link', { name: 'Back to links' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const rows = page.locator('.lk-links-table tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Search').fill('SPRING');
    await expect.poll(() => page.url()).toContain('q=SPRING');
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('/spring-drop');

    // Edit: one UTM value and the tags; the PATCH carries only those two fields.
    await page.getByRole('link', { name: /^Edit .*\/spring-drop$/ }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page.getByLabel('UTM source').fill('tiktok');
    await page.getByRole('button', { name: 'Remove tag promo' }).click();
    await page.getByLabel('Tags').fill('creators');
    await page.getByLabel('Tags').press('Enter');
    const patchRequest = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    const sent = JSON.parse((await patchRequest).postData() ?? '{}');
    expect(Object.keys(sent).sort()).toEqual(['tags', 'utm']);
    await page.getByText('Changes saved').waitFor();
    const edited = await apiCall<ApiLink>(page, 'GET', `/links/${id}`);
    expect(edited.utm).toEqual({ source: 'tiktok', campaign: 'spring' });
    expect(edited.tags).toEqual(['creators', 'launch']);
    expect(edited.routing).toEqual(created.routing);

    // A/B on a routed link: the conflict is explained next to the routing and A/B sections.
    await page.getByText('A/B test', { exact: true }).click();
    await page.getByRole('button', { name: 'Start an A/B test' }).click();
    await page.getByLabel('Variant B URL').fill('https://example.com/b');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect
      .poll(() => page.locator('.lk-routing-card [role="alert"]').first().textContent())
      .toContain('cannot have both A/B variants and routing');
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${id}`)).ab).toBeNull();

    // Archive from the table: confirm in the dialog, the row goes, the short URL keeps redirecting with UTM.
    await page.getByRole('link', { name: 'Back to links' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await page.getByLabel('Search').fill('spring');
    await expect.poll(() => rows.count()).toBe(1);
    await page.getByRole('button', { name: /^Archive .*\/spring-drop$/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive this link?' });
    await expect.poll(() => dialog.textContent()).toContain('keeps redirecting');
    await dialog.getByRole('button', { name: 'Archive link' }).click();
    await page.getByText('No links match these filters').waitFor();
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('/other-thing');
    await expect.poll(() => page.locator('.lk-cap-line').textContent()).toBe('1 of 1,000 live links on Hero');
    const listed = await apiCall<{ links: ApiLink[] }>(page, 'GET', '/links');
    expect(listed.links.map((link) => link.slug)).toEqual(['other-thing']);

    const desktop = await fetch(created.shortUrl, {
      redirect: 'manual',
      headers: { 'user-agent': UA.desktopChrome },
    });
    expect(desktop.status).toBe(302);
    const location = new URL(desktop.headers.get('location') ?? '');
    expect(`${location.origin}${location.pathname}`).toBe('https://example.com/spring-drop');
    expect(location.searchParams.get('utm_source')).toBe('tiktok');
    expect(location.searchParams.get('utm_campaign')).toBe('spring');
    const iphone = await fetch(created.shortUrl, {
      redirect: 'manual',
      headers: { 'user-agent': UA.iphoneSafari },
    });
    expect(iphone.status).toBe(302);
    expect(iphone.headers.get('location')).toMatch(
      /^https:\/\/apps\.apple\.com\/app\/spring\?.*utm_source=tiktok/,
    );
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows an A/B variant’s validation message at that variant, and creates nothing', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.goto(`${dash.server.url}/#/links/new`);
    await page.getByLabel('Destination URL').fill('https://example.com/ab');
    await page.getByText('A/B test', { exact: true }).click();
    await page.getByRole('button', { name: 'Start an A/B test' }).click();
    await page.getByRole('button', { name: 'Add a variant' }).click();
    await page.getByLabel('Variant B URL').fill('notaurl');
    await page.getByLabel('Variant C URL').fill('https://example.com/c');
    await page.getByRole('button', { name: 'Create link' }).click();
    const variantB = page.locator('.lk-ab-row[data-variant="1"] .field-error');
    await expect.poll(() => variantB.textContent()).toBe('Every A/B variant must be a valid http(s) URL');
    await expect.poll(() => page.locator('.lk-ab-row[data-variant="2"] .field-error').count()).toBe(0);
    await expect.poll(() => page.getByLabel('Variant B URL').getAttribute('aria-invalid')).toBe('true');
    expect(page.url()).toContain('#/links/new');
    expect((await apiCall<{ links: ApiLink[] }>(page, 'GET', '/links')).links).toEqual([]);

    // Fixed, it saves: removing all variants later sends `ab: null`.
    await page.getByLabel('Variant B URL').fill('https://example.com/b');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    const id = linkIdOf(page);
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${id}`)).ab).toEqual([
      { u: 'https://example.com/ab', w: 1 },
      { u: 'https://example.com/b', w: 1 },
      { u: 'https://example.com/c', w: 1 },
    ]);
    await page.getByRole('button', { name: 'End the test' }).click();
    const patchRequest = page.waitForRequest((request) => request.method() === 'PATCH');
    await page.getByRole('button', { name: 'Save changes' }).click();
    expect(JSON.parse((await patchRequest).postData() ?? '{}')).toEqual({ ab: null });
    await page.getByText('Changes saved').waitFor();
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${id}`)).ab).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a folder and a pixel are created inline, saved on the link, and the list filters by folder and tag', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await apiCall(page, 'POST', '/links', { url: 'https://example.com/elsewhere', tags: ['merch'] });
    await page.goto(`${dash.server.url}/#/links/new`);
    await page.getByLabel('Destination URL').fill('https://shop.example.com/hoodie');
    await page.getByLabel('Tags').fill('merch');
    await page.getByRole('button', { name: 'New folder' }).click();
    await page.getByLabel('New folder name').fill('Merch drop');
    await page.getByRole('button', { name: 'Create folder' }).click();
    await expect.poll(() => page.getByLabel('Folder').inputValue()).not.toBe('');
    await page.getByText('Ad pixels', { exact: true }).click();
    await page.getByRole('button', { name: 'New pixel' }).click();
    await page.getByLabel('Pixel ID').fill('12345');
    await page.getByLabel('Pixel name').fill('Main pixel');
    await page.getByRole('button', { name: 'Add pixel' }).click();
    // The pixel route's own validation, at the pixel field; nothing added.
    await page.locator('.lk-pixel-create .field-error').waitFor();
    await page.getByLabel('Pixel ID').fill('123456789012345');
    await page.getByRole('button', { name: 'Add pixel' }).click();
    await expect.poll(() => page.getByRole('checkbox', { name: /Main pixel/ }).isChecked()).toBe(true);
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    const link = await apiCall<ApiLink & { folderId: string; pixelIds: string[] }>(
      page,
      'GET',
      `/links/${linkIdOf(page)}`,
    );
    const folders = await apiCall<{ folders: { id: string; name: string }[] }>(page, 'GET', '/folders');
    expect(folders.folders.map((f) => f.name)).toEqual(['Merch drop']);
    expect(link.folderId).toBe(folders.folders[0]?.id);
    expect(link.pixelIds).toHaveLength(1);
    expect(link.tags).toEqual(['merch']);

    await page.getByRole('link', { name: 'Back to links' }).click();
    const rows = page.locator('.lk-links-table tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Tag').selectOption('merch');
    await expect.poll(() => page.url()).toContain('tag=merch');
    await expect.poll(() => rows.count()).toBe(2);
    await page.getByLabel('Folder').selectOption({ label: 'Merch drop' });
    await expect.poll(() => rows.count()).toBe(1);
    await expect.poll(() => rows.first().textContent()).toContain('in Merch drop');
    expect(page.url()).toContain(`folder=${link.folderId}`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a sidekick sees upgrade notices instead of the A/B controls, and no folder filter', async () => {
    const who = await dash.server.user('sidekick');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await expect
      .poll(() => page.locator('.lk-cap-line').textContent())
      .toBe('0 of 25 live links on Sidekick');
    await expect.poll(() => page.getByLabel('Folder').count()).toBe(0);
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByRole('heading', { name: 'New link', level: 1 }).waitFor();
    const notice = page.locator('.upgrade[data-feature="abTesting"]');
    // Each locked section says in one line which plans have it; the page says once which plan this is.
    await expect.poll(() => notice.textContent()).toContain('Part of Hero and Legend');
    await expect.poll(() => page.getByText(/You are on Sidekick/).count()).toBe(1);
    await expect.poll(() => page.getByRole('button', { name: 'Start an A/B test' }).count()).toBe(0);
    await expect.poll(() => page.getByLabel('Variant A URL').count()).toBe(0);
    await expect.poll(() => page.getByLabel('Custom slug').count()).toBe(0);
    await expect.poll(() => page.locator('.upgrade[data-feature="customSlugs"]').count()).toBe(1);
    // What the plan has still works: a plain link with UTM.
    await page.getByLabel('Destination URL').fill('https://open.spotify.com/track/abc');
    await page.getByText('UTM parameters').click();
    await page.getByLabel('UTM source').fill('bio');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    const link = await apiCall<ApiLink>(page, 'GET', `/links/${linkIdOf(page)}`);
    expect(link.slug).toMatch(/^[a-zA-Z0-9]{7}$/);
    expect(link.utm).toEqual({ source: 'bio' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('after a downgrade, an over-cap link is read-only: explained, the form disabled, and it can be archived', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    for (let i = 0; i < 26; i++) {
      await apiCall(page, 'POST', '/links', { url: `https://example.com/post-${i}` });
    }
    await dash.server.accounts.setTier(who.orgId, 'sidekick');
    await page.reload();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await expect
      .poll(() => page.locator('.lk-cap-line').textContent())
      .toContain('26 of 25 live links on Sidekick');
    await expect.poll(() => page.locator('.lk-cap-note').textContent()).toContain('New links are refused');
    const locked = page.locator('.lk-links-table tbody tr', { hasText: 'Read-only' });
    await expect.poll(() => locked.count()).toBe(1);
    await locked.getByRole('link', { name: /^Edit / }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'read-only' }).textContent())
      .toContain('still redirects');
    await expect.poll(() => page.getByLabel('Destination URL').isDisabled()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'Save changes' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Archive link' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Archive link' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await expect
      .poll(() => page.getByRole('status').filter({ hasText: 'was archived' }).textContent())
      .toContain('keeps redirecting');
    await expect.poll(() => page.locator('.lk-cap-line').textContent()).toContain('25 of 25');
    await expect.poll(() => locked.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a campaign end is set in the form, the list shows it ended with its clicks, and an archived link is restored', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const link = await apiCall<ApiLink>(page, 'POST', '/links', {
      url: 'https://example.com/sale',
      slug: 'sale',
    });
    await page.goto(`${dash.server.url}/#/links/${link.id}`);
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page.getByText('End date or click limit').click();
    await page.getByLabel('Click limit').fill('1');
    await page.getByRole('button', { name: 'Save changes' }).click();
    // Without the afterwards address the save is refused at that field, in plain words.
    const afterwards = page.getByLabel('Afterwards, send visitors to');
    await expect.poll(() => afterwards.getAttribute('aria-invalid')).toBe('true');
    await expect
      .poll(() => page.locator('.lk-link-editor').textContent())
      .toContain('Add the address visitors go to once the end date or the click limit is reached');
    await afterwards.fill('https://example.com/sale-over');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Changes saved');
    expect(await apiCall(page, 'GET', `/links/${link.id}`)).toMatchObject({
      maxClicks: 1,
      expiredUrl: 'https://example.com/sale-over',
      expired: false,
    });

    const open = async () =>
      (
        await fetch(link.shortUrl, { redirect: 'manual', headers: { 'user-agent': UA.desktopChrome } })
      ).headers.get('location');
    expect(await open()).toBe('https://example.com/sale');
    expect(await open()).toBe('https://example.com/sale-over');

    // The list: an Ended badge, and the 30-day clicks (both visits) once the writer has flushed them.
    await page.goto(`${dash.server.url}/#/links`);
    const row = page.locator('.lk-links-table tbody tr').filter({ hasText: '/sale' });
    await expect.poll(() => row.textContent()).toContain('Ended');
    await expect
      .poll(
        async () => {
          await page.reload();
          return row.locator('.lk-cell-num').first().textContent();
        },
        { timeout: 10_000 },
      )
      .toBe('Clicks (30 days): 2');
    expect(await row.locator('.lk-cell-num').nth(1).textContent()).toContain('App-open rate');

    // Archived, it shows under the Archived filter, and Restore brings it back to the live list.
    await apiCall(page, 'POST', `/links/${link.id}/archive`);
    await page.reload();
    await page.getByText('Create your first smart link').waitFor();
    await page.getByLabel('Show').selectOption('archived');
    await expect.poll(() => page.url()).toContain('show=archived');
    await page.getByRole('button', { name: /^Restore .*\/sale$/ }).click();
    await page.getByText('No archived links here').waitFor();
    await page.getByLabel('Show').selectOption('live');
    await expect.poll(() => page.locator('.lk-links-table tbody tr').count()).toBe(1);
    expect((await apiCall<{ archived: boolean }>(page, 'GET', `/links/${link.id}`)).archived).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('at 375 px a link is created and listed without horizontal page scroll', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser, 375);
    await logIn(page, dash.server.url, who);
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('link', { name: 'New link' }).click();
    await page.getByRole('heading', { name: 'New link', level: 1 }).waitFor();
    await page
      .getByLabel('Destination URL')
      .fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ&list=a-very-long-list-id');
    await page.getByLabel('Tags').fill('mobile, a-rather-long-tag-name-for-wrapping');
    await page.getByLabel('Tags').press('Enter');
    await page.getByText('Scheduled destinations').click();
    await page.getByRole('button', { name: 'Schedule a destination' }).click();
    await page.getByLabel('Starts, entry 1').fill('2030-01-01T09:00');
    await page.getByLabel('URL (https), entry 1').fill('https://example.com/later');
    expect(await fitsWidth(page)).toBe(true);
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page.locator('.lk-qr-preview img').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    const link = await apiCall<ApiLink & { sched: { from: number; url: string }[] }>(
      page,
      'GET',
      `/links/${linkIdOf(page)}`,
    );
    // Entered as local time, sent as epoch seconds.
    const expected = await page.evaluate(() => Math.floor(new Date('2030-01-01T09:00').getTime() / 1000));
    expect(link.sched).toEqual([{ from: expected, url: 'https://example.com/later' }]);
    await page.getByRole('link', { name: 'Back to links' }).click();
    await page.locator('.lk-links-table tbody tr').first().waitFor();
    expect(await fitsWidth(page)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
