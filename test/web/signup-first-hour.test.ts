import { describe, expect, it } from 'vitest';
import { browserSkipReason, openPage, useDashboard } from './harness.js';

/**
 * Issue #32 (items 4 and 5) in Chromium: without SMTP the sign-up page says the link is in the server's
 * log, and its promise is the plan the sign-up really gets (Legend for the operator, Sidekick after).
 */
describe.skipIf(browserSkipReason !== null)('dashboard: the first sign-up on a server without SMTP', () => {
  const dash = useDashboard();

  it('promises Legend to the first account, points to the log, and the log link opens a Legend workspace', async () => {
    const { page, errors, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/signup`);
    const promise = page.getByTestId('plan-promise');
    await expect
      .poll(() => promise.textContent())
      .toBe(
        "You are this server's first account, so your workspace is its operator's, on Legend: 100,000 links, QR " +
          'codes, a bio page, custom slugs, full analytics with app-open tracking, your own domains, the API and webhooks.',
      );
    await page.getByLabel('Workspace name').fill('Home Lab');
    await page.getByLabel('Email').fill('op@example.com');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: "The confirmation link is in the server's log" }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain("is in the server's log");
    expect(await page.getByRole('heading', { name: 'Check your inbox' }).count()).toBe(0);
    const link = await dash.server.inviteLink('op@example.com');
    await page.goto(link);
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.tier').textContent()).toBe('Legend');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('after the operator, the page promises Sidekick as Sidekick is: no app-open tracking', async () => {
    const { page, errors, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/signup`);
    const promise = page.getByTestId('plan-promise');
    await expect
      .poll(() => promise.textContent())
      .toBe('Free on Sidekick: 25 links, QR codes and a bio page.');
    expect(errors).toEqual([]);
    await context.close();
  });
});
