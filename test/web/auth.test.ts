import { afterAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { nthMailTo, signupTokenIn } from '../helpers/mailbox.js';
import { browserSkipReason, logIn, openPage, useDashboard } from './harness.js';

describe.skipIf(browserSkipReason !== null)('dashboard: landing, sign-up and log-in in Chromium', () => {
  let smtp: SmtpSink | undefined;
  const dash = useDashboard(async () => {
    smtp = await startSmtp();
    return { SMTP_URL: smtp.url };
  });
  afterAll(async () => smtp?.close());

  it('a logged-out visitor sees the landing page with sign-up and log-in', async () => {
    const { page, errors, context } = await openPage(dash.browser);
    const response = await page.goto(`${dash.server.url}/`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toContain('open the app');
    await page.getByRole('link', { name: 'Sign up free' }).click();
    await page.getByRole('heading', { name: 'Create your workspace' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sign-up shows the server validation message at the field, then mails a link that creates the workspace', async () => {
    const { page, errors, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/signup`);
    await page.getByLabel('Workspace name').fill('Night Owl Studio');
    await page.getByLabel('Email').fill('owl@example.com');
    await page.getByLabel('Password').fill('short');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    const passwordError = page.locator('.field-invalid .field-error');
    await expect.poll(() => passwordError.textContent()).toBe('Passwords have at least 8 characters');
    await page.getByLabel('Password').fill('a much longer password');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    expect(await page.getByRole('status').textContent()).toContain('owl@example.com');
    const token = signupTokenIn(await nthMailTo(smtp as SmtpSink, 'owl@example.com'));
    await page.goto(`${dash.server.url}/#/signup/confirm?token=${token}`);
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.nav-org').textContent()).toContain('Night Owl Studio');
    // The session survives a reload (the HttpOnly cookie), and logging out returns to the landing page.
    await page.reload();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('link', { name: 'Sign up free' }).waitFor();
    // The link worked once: opened again, it says so and offers a new sign-up.
    await page.goto(`${dash.server.url}/#/signup/confirm?token=${token}`);
    await page.reload();
    await page.getByRole('heading', { name: 'This link does not work' }).waitFor();
    await page.getByRole('link', { name: 'Sign up again' }).waitFor();
    expect(errors.filter((error) => !error.includes('404'))).toEqual([]);
    await context.close();
  });

  it('a wrong password is one plain message; the right one logs in', async () => {
    const who = await dash.server.user('hero');
    const { page, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/login`);
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('do not match');
    await logIn(page, dash.server.url, who);
    await expect.poll(() => page.locator('.tier').textContent()).toBe('Hero');
    await context.close();
  });

  it('works from the keyboard alone: log in, skip to content, reach a page through the navigation', async () => {
    const who = await dash.server.user('hero');
    const { page, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/login`);
    await page.getByLabel('Email').focus();
    await page.keyboard.type(who.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(who.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    // The first Tab stop is the skip button; it moves focus to the main region.
    await page.keyboard.press('Tab');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
    // Tab through the navigation to Analytics and follow it with Enter.
    await page.getByRole('link', { name: 'Links', exact: true }).first().focus();
    for (let i = 0; i < 10; i++) {
      const label = await page.evaluate(() => document.activeElement?.textContent ?? '');
      if (label === 'Analytics') break;
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Analytics', level: 1 }).waitFor();
    expect(page.url()).toContain('#/analytics');
    await context.close();
  });

  it('serves hashed assets gzipped and immutable', async () => {
    const html = await (await fetch(`${dash.server.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const response = await fetch(`${dash.server.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('cache-control')).toContain('immutable');
    expect((await fetch(`${dash.server.url}/assets/nope.js`)).status).toBe(404);
  });

  it('the initial JavaScript stays under 200 KB gzipped', async () => {
    const html = await (await fetch(`${dash.server.url}/`)).text();
    const scripts = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((match) => match[1]);
    expect(scripts.length).toBeGreaterThan(0);
    let gzipped = 0;
    for (const script of scripts) {
      const response = await fetch(`${dash.server.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
      // fetch decodes the body: count the bytes on the wire instead.
      gzipped += Number(response.headers.get('content-length'));
    }
    expect(gzipped).toBeGreaterThan(10_000);
    expect(gzipped).toBeLessThan(200 * 1024);
  });
});
