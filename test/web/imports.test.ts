import { afterAll, describe, expect, it } from 'vitest';
import { FakeShlink } from '../fakes/shlink-server.js';
import { LOW_CONTRAST } from './contrast.js';
import { browserSkipReason, fitsWidth, logIn, openPage, useDashboard } from './harness.js';

/** The Import page and its progress view in Chromium, against the real service and the Shlink fake. */
describe.skipIf(browserSkipReason !== null)('dashboard: importing links in Chromium', () => {
  const shlink = new FakeShlink().seed(12);
  const dash = useDashboard(async () => {
    await shlink.start();
    return { IMPORT_ALLOW_PRIVATE_SOURCES: '1' };
  });
  afterAll(() => shlink.stop());

  it('a hero imports from Shlink and follows the progress to the end, with the notes listed', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.getByRole('link', { name: 'Import' }).click();
    await page.getByRole('heading', { name: 'Import links', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No imports yet' }).waitFor();

    await page.getByLabel('From').selectOption('shlink');
    // Required fields are named before anything is sent.
    await page.getByRole('button', { name: 'Start import' }).click();
    await expect.poll(() => page.locator('.field-error').count()).toBe(2);
    await page.getByLabel('Shlink address').fill(shlink.origin);
    await page.getByLabel('API key').fill(shlink.apiKey);
    await page.getByRole('button', { name: 'Start import' }).click();

    await page.getByRole('heading', { name: 'Import from Shlink', level: 1 }).waitFor();
    await page.getByText('done', { exact: true }).waitFor();
    expect(await page.getByTestId('imported').textContent()).toBe('12');
    expect(await page.getByLabel('Import progress').getAttribute('value')).toBe('12');
    // s.example.test is not one of this organization's verified domains: each link says where it went.
    const notes = page.locator('.import-errors tbody tr');
    expect(await notes.count()).toBe(12);
    expect(await notes.first().textContent()).toContain('s.example.test is not a verified domain');

    expect(await page.evaluate(LOW_CONTRAST)).toEqual([]);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });

    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByText('12 imported, 0 skipped, 0 failed').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
