import { describe, expect, it } from 'vitest';
import { apiCall, browserSkipReason, logIn, openPage, useDashboard } from './harness.js';

/** Members, invites, scoped keys, the audit log and the workspace switcher in Chromium (issue #20). */

describe.skipIf(browserSkipReason !== null)('dashboard: teams', () => {
  const dash = useDashboard();

  it('an owner invites a new person, who sets a password on the accept page and lands in the workspace', async () => {
    const owner = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, owner);
    await page.getByRole('link', { name: 'Members' }).click();
    await page.getByRole('heading', { name: 'Members', level: 1 }).waitFor();
    await page.getByRole('row', { name: new RegExp(`${owner.email}.*Owner`) }).waitFor();

    await page.getByLabel('Email').fill('Newcomer@Example.com');
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Send invite' }).click();
    // The link goes to the invitee only: without SMTP, to the operator's server log, never to this page.
    await page.getByText('This server sends no mail (no SMTP_URL)').waitFor();
    const acceptUrl = await dash.server.inviteLink('newcomer@example.com');
    expect(acceptUrl).toMatch(new RegExp(`^${dash.server.url}/#/invite/[A-Za-z0-9_-]{43}$`));
    expect(await page.textContent('main')).not.toContain(acceptUrl.split('/').pop());
    await page.getByRole('row', { name: /newcomer@example\.com.*Member/ }).waitFor();

    // The invitee, in a browser of their own.
    const guest = await openPage(dash.browser);
    await guest.page.goto(acceptUrl);
    await guest.page.getByRole('heading', { name: 'Join Studio legend' }).waitFor();
    expect(await guest.page.textContent('main')).toContain(
      'You are invited as member, with newcomer@example.com',
    );
    await guest.page.getByLabel('Choose a password').fill('newcomer password');
    await guest.page.getByRole('button', { name: 'Join Studio legend' }).click();
    await guest.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    // A member creates links but does not see API keys.
    await guest.page.goto(`${dash.server.url}/#/keys`);
    await guest.page.getByText('Only owners and admins see and create API keys').waitFor();
    // The link works once.
    await guest.page.goto(acceptUrl);
    await guest.page.getByRole('heading', { name: 'This invite does not work' }).waitFor();
    expect(guest.errors).toEqual([]);
    await guest.context.close();

    // The owner sees them as a member, makes them a viewer, and the audit log tells the story.
    await page.reload();
    const select = page.getByLabel('Role of newcomer@example.com');
    await expect.poll(() => select.inputValue()).toBe('member');
    await select.selectOption('viewer');
    await page.getByText('newcomer@example.com is now viewer.').waitFor();
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const actions = page.locator('tbody td code');
    await expect
      .poll(async () => (await actions.allTextContents()).filter((text) => text.includes('.')))
      .toEqual(['member.role_changed', 'invite.accepted', 'invite.created']);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a key gets a name and scopes; the list shows them with created and last used', async () => {
    const owner = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, owner);
    await page.goto(`${dash.server.url}/#/keys`);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Give the key a name').waitFor();
    await page.getByLabel('Name').fill('Reporting');
    await page.getByLabel('Everything the API offers').uncheck();
    await page.getByLabel('analytics:read').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-key').locator('code').textContent()) ?? '';
    expect(key).toMatch(/^svc_/);
    const row = page.getByRole('row', { name: /Reporting/ });
    await expect.poll(() => row.textContent()).toMatch(/links:read, analytics:read.*Never.*Active/);

    const call = (path: string) =>
      fetch(`${dash.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect((await call('/v1/links')).status).toBe(200);
    const refused = await call('/v1/webhooks');
    expect(refused.status).toBe(403);
    expect((await refused.json()).error).toBe('forbidden_scope');
    await page.reload();
    await expect
      .poll(() => page.getByRole('row', { name: /Reporting/ }).textContent())
      .not.toContain('Never');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('someone with an account, logged out, opens an invite: the page logs them in (the ordinary log-in) and they join', async () => {
    const inviter = await dash.server.user('legend');
    const invitee = await dash.server.user('hero');
    const { page, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, inviter);
    await apiCall(page, 'POST', '/invites', { email: invitee.email, role: 'viewer' });
    await context.close();
    const acceptUrl = await dash.server.inviteLink(invitee.email);

    const guest = await openPage(dash.browser);
    await guest.page.goto(acceptUrl);
    // Not told whether the email has an account: the page offers a new password first.
    await guest.page.getByLabel('Choose a password').fill('whatever they type');
    await guest.page.getByRole('button', { name: 'Join Studio legend' }).click();
    await guest.page.getByText(`${invitee.email} already has a linkhop account: log in`).waitFor();
    await guest.page.getByLabel('Your linkhop password').fill(invitee.password);
    await guest.page.getByRole('button', { name: 'Join Studio legend' }).click();
    await guest.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const session = await apiCall<{ org: { name: string }; role: string }>(guest.page, 'GET', '/session');
    expect(session).toMatchObject({ org: { name: 'Studio legend' }, role: 'viewer' });
    expect(guest.errors).toEqual([]);
    await guest.context.close();
  });

  it('a person in two workspaces switches between them', async () => {
    const first = await dash.server.user('legend');
    const second = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, second);
    await page.goto(`${dash.server.url}/#/members`);
    await page.getByLabel('Email').fill(first.email);
    await page.getByRole('button', { name: 'Send invite' }).click();
    const acceptUrl = await dash.server.inviteLink(first.email);
    await context.close();

    const own = await openPage(dash.browser);
    await logIn(own.page, dash.server.url, first);
    await own.page.goto(acceptUrl);
    // Logged in as the invitee: no password asked.
    await own.page.getByRole('button', { name: 'Join Studio hero' }).click();
    await own.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const switcher = own.page.getByLabel('Workspace');
    await expect.poll(() => switcher.locator('option:checked').textContent()).toBe('Studio hero (Member)');
    await switcher.selectOption({ label: 'Studio legend (Owner)' });
    await expect.poll(() => switcher.locator('option:checked').textContent()).toBe('Studio legend (Owner)');
    await own.page.reload();
    await expect
      .poll(() => own.page.getByLabel('Workspace').locator('option:checked').textContent())
      .toBe('Studio legend (Owner)');
    expect(errors).toEqual([]);
    expect(own.errors).toEqual([]);
    await own.context.close();
  });
});
