import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { browserSkipReason, logIn, openPage, useDashboard } from './harness.js';

/**
 * Issue #34, end to end in Chromium: an owner connects a real OpenID provider (oidc-provider on loopback)
 * on the settings page; a new person clicks "Sign in with SSO", types their work email, clicks "Sign in
 * with Acme ID", logs in on the provider's own page and lands in the dashboard as a viewer.
 */
describe.skipIf(browserSkipReason !== null)('dashboard: single sign-on in Chromium', () => {
  const dash = useDashboard({ SSO_ALLOW_PRIVATE_ISSUERS: '1' });
  let provider: TestProvider;
  beforeAll(async () => {
    provider = await startTestProvider({ redirectUri: `${dash.server.url}/api/sso/callback` });
  });
  afterAll(async () => provider?.close());

  it('the owner configures SSO; a person of the domain signs in with it and joins as viewer', async () => {
    const owner = await dash.server.user('hero');
    const admin = await openPage(dash.browser);
    await logIn(admin.page, dash.server.url, owner);
    await admin.page.goto(`${dash.server.url}/#/settings`);
    const card = admin.page.locator('.card', { hasText: 'Single sign-on' });
    await card.getByLabel('Button label').fill('Acme ID');
    await card.getByLabel('Issuer URL').fill(provider.issuer);
    await card.getByLabel('Client ID').fill(provider.clientId);
    await card.getByLabel('Client secret').fill(provider.clientSecret);
    await card.getByLabel('Email domain').fill('acme.test');
    await card.getByRole('button', { name: 'Save single sign-on' }).click();
    await card.getByText('Single sign-on saved.').waitFor();
    await card.getByText(`${dash.server.url}/api/sso/callback`).waitFor();
    expect(admin.errors).toEqual([]);
    await admin.context.close();

    provider.people.set('pat', { email: 'pat@acme.test' });
    const { page, errors, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/login`);
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Work email').fill('pat@acme.test');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    // The provider's own log-in page (oidc-provider's development form).
    await page.waitForURL(`${provider.issuer}/**`);
    await page.locator('input[name="login"]').fill('pat');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const session = await page.evaluate(async () => (await fetch('/api/session')).json());
    expect(session).toMatchObject({
      user: { email: 'pat@acme.test' },
      org: { id: owner.orgId },
      role: 'viewer',
    });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a refused sign-in comes back to the log-in page with a plain reason', async () => {
    provider.people.set('quinn', { email: 'quinn@acme.test', emailVerified: false });
    const { page, context } = await openPage(dash.browser);
    await page.goto(`${dash.server.url}/#/login`);
    await page.getByRole('button', { name: 'Sign in with SSO' }).click();
    await page.getByLabel('Work email').fill('quinn@acme.test');
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await page.getByRole('link', { name: 'Sign in with Acme ID' }).click();
    await page.waitForURL(`${provider.issuer}/**`);
    await page.locator('input[name="login"]').fill('quinn');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.waitForURL('**/#/login?sso_error=unverified');
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('has not verified your email address');
    await context.close();
  });
});
