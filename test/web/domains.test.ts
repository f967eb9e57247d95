import { afterAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../fakes/dns-server.js';
import { LOW_CONTRAST } from './contrast.js';
import { apiCall, browserSkipReason, fitsWidth, logIn, openPage, useDashboard } from './harness.js';

/** The Domains page and the link form's domain select in Chromium, against the real service and DNS. */
describe.skipIf(browserSkipReason !== null)('dashboard: custom domains in Chromium', () => {
  let dns: FakeDns | undefined;
  const dash = useDashboard(async () => {
    dns = await startFakeDns();
    return { DNS_RESOLVER: dns.address };
  });
  afterAll(async () => dns?.close());

  it('a hero adds a domain, copies its TXT record, verifies it, and puts a link on it', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No domains yet' }).waitFor();

    // The server's refusals land at the field.
    await page.getByLabel('Hostname').fill('192.0.2.1');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect.poll(() => page.locator('.field-error').textContent()).toContain('not an IP address');

    await page.getByLabel('Hostname').fill('Links.NightOwl.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    const item = page.locator('[data-domain="links.nightowl.test"]');
    await item.getByText('Not verified').waitFor();
    expect(await item.getByTestId('txt-name').textContent()).toBe('_linkhop.links.nightowl.test');
    const value = String(await item.getByTestId('txt-value').textContent());
    expect(value).toMatch(/^linkhop-verify=[0-9a-f]{32}$/);
    await item.getByRole('button', { name: `Copy value ${value}` }).waitFor();

    // Before the record exists: the page says what it looked for; a link cannot use the name yet.
    await page.getByRole('button', { name: 'Verify links.nightowl.test' }).click();
    await expect.poll(() => item.locator('.banner').textContent()).toContain('No TXT record');
    dns?.txt.set('_linkhop.links.nightowl.test', ['v=spf1 -all']);
    await page.getByRole('button', { name: 'Verify links.nightowl.test' }).click();
    await expect.poll(() => item.locator('.banner').textContent()).toContain('v=spf1 -all');

    // Readable and fitting on a phone, with the record and the error on screen.
    expect(await page.evaluate(LOW_CONTRAST)).toEqual([]);
    await page.setViewportSize({ width: 375, height: 812 });
    expect(await fitsWidth(page)).toBe(true);
    await page.setViewportSize({ width: 1280, height: 860 });

    dns?.txt.set('_linkhop.links.nightowl.test', [value]);
    await page.getByRole('button', { name: 'Verify links.nightowl.test' }).click();
    await item.getByText('Verified', { exact: true }).waitFor();
    expect(await item.getByTestId('txt-value').count()).toBe(0);
    expect(await fitsWidth(page)).toBe(true);

    // A second domain, never verified: the link form offers only the verified one.
    await page.getByLabel('Hostname').fill('pending.nightowl.test');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.locator('[data-domain="pending.nightowl.test"]').getByText('Not verified').waitFor();
    await page.goto(`${dash.server.url}/#/links/new`);
    await page.getByRole('heading', { name: 'New link', level: 1 }).waitFor();
    const select = page.getByLabel('Domain');
    await expect
      .poll(() => select.locator('option').allTextContents())
      .toEqual(['Default linkhop address', 'links.nightowl.test']);
    await page.getByLabel('Destination URL').fill('https://example.com/owl');
    await page.getByLabel('Custom slug').fill('owl');
    await select.selectOption('links.nightowl.test');
    await page.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    const id = /#\/links\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    const link = await apiCall<{ shortUrl: string; hostname: string }>(page, 'GET', `/links/${id}`);
    expect(link).toMatchObject({
      hostname: 'links.nightowl.test',
      shortUrl: 'https://links.nightowl.test/owl',
    });

    // In use, the domain cannot be removed; the dialog says why.
    await page.goto(`${dash.server.url}/#/domains`);
    await page.getByRole('button', { name: 'Remove links.nightowl.test' }).click();
    await page.getByRole('button', { name: 'Remove domain' }).click();
    await expect
      .poll(() => page.locator('dialog .banner').textContent())
      .toContain('use links.nightowl.test');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a sidekick is offered the upgrade instead of the form', async () => {
    const who = await dash.server.user('sidekick');
    const { page, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.goto(`${dash.server.url}/#/domains`);
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
    await page.getByText('Custom domains is part of Hero and Legend.').first().waitFor();
    expect(await page.getByLabel('Hostname').count()).toBe(0);
    await context.close();
  });
});
