import { describe, expect, it } from 'vitest';
import { UA } from '../helpers/user-agents.js';
import { apiCall, browserSkipReason, logIn, openPage, useDashboard } from './harness.js';

/**
 * Issue #20 in Chromium, the parts test/web/teams.test.ts, links.test.ts and settings.test.ts leave out:
 * the public stats toggle and its public page, the audit log's CSV export, password change, leaving a
 * workspace, and deleting one's account as the last owner while its links keep redirecting.
 */

interface ApiLink {
  id: string;
  slug: string;
  shortUrl: string;
  publicStats: boolean;
}

describe.skipIf(browserSkipReason !== null)('dashboard: account basics in Chromium', () => {
  const dash = useDashboard();

  it('public stats are switched on in the link editor; the public page and its JSON answer, and go when switched off', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const link = await apiCall<ApiLink>(page, 'POST', '/links', {
      url: 'https://example.com/tour',
      slug: 'tour',
    });
    const publicPage = () => fetch(`${link.shortUrl}+`, { headers: { 'user-agent': UA.desktopChrome } });
    const publicJson = () => fetch(`${dash.server.url}/api/public/stats/${link.slug}`);
    expect((await publicPage()).status).toBe(404);

    await page.goto(`${dash.server.url}/#/links/${link.id}`);
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page.getByText('Public stats', { exact: true }).click();
    await page.getByLabel('Anyone can see this link’s clicks, countries, devices and app-open rate').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Changes saved');
    expect((await apiCall<ApiLink>(page, 'GET', `/links/${link.id}`)).publicStats).toBe(true);

    // The public page, in a browser with no session at all.
    const visitor = await openPage(dash.browser);
    await visitor.page.goto(`${link.shortUrl}+`);
    await visitor.page.getByRole('heading', { name: /\/tour/ }).waitFor();
    expect(await visitor.page.textContent('body')).toContain('Public stats, last 30 days');
    expect(visitor.errors).toEqual([]);
    await visitor.context.close();
    const body = await (await publicJson()).json();
    expect(body).toMatchObject({ slug: 'tour', clicks: expect.any(Number), series: expect.any(Array) });

    // Switched off again: both are 404. (An active power opens by itself.)
    await page.reload();
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page
      .getByLabel('Anyone can see this link’s clicks, countries, devices and app-open rate')
      .uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Changes saved');
    expect((await publicPage()).status).toBe(404);
    expect((await publicJson()).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the audit log page offers a CSV export of what it lists, filtered by action', async () => {
    const owner = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, owner);
    await apiCall(page, 'POST', '/links', { url: 'https://example.com/one' });
    await apiCall(page, 'POST', '/folders', { name: 'Spring' });
    await page.goto(`${dash.server.url}/#/audit-log`);
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const exportLink = page.getByRole('link', { name: 'Export CSV' });
    expect(await exportLink.getAttribute('href')).toBe('/api/audit-log/export');

    const [download] = await Promise.all([page.waitForEvent('download'), exportLink.click()]);
    const text = await new Promise<string>((resolve, reject) => {
      void download.createReadStream().then((stream) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        stream.on('error', reject);
      });
    });
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,at,actor_type,actor_id,actor_label,action,target_type,target_id,changes');
    expect(lines.slice(1).map((line) => line.split(',')[5])).toEqual(['folder.created', 'link.created']);
    expect(lines[1]).toContain(owner.email);

    await page.getByLabel('Action').fill('link.created');
    await expect
      .poll(() => exportLink.getAttribute('href'))
      .toBe('/api/audit-log/export?action=link.created');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a password is changed in Settings: the wrong current one is refused at its field, then only the new one logs in', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.goto(`${dash.server.url}/#/settings`);
    await page.getByLabel('Current password').fill('not my password');
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    const current = page.getByLabel('Current password');
    await expect.poll(() => current.getAttribute('aria-invalid')).toBe('true');

    await current.fill(who.password);
    await page.getByLabel('New password').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other sessions are logged out.').waitFor();

    const login = (password: string) =>
      fetch(`${dash.server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: who.email, password }),
      });
    expect((await login(who.password)).status).toBe(401);
    expect((await login('a brand new password')).status).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a member leaves a workspace from Settings and lands in their other one; with one workspace left, Settings says to delete the account instead', async () => {
    const hero = await dash.server.user('hero');
    const legend = await dash.server.user('legend');
    // The legend's owner joins the hero workspace as a member, through an invite.
    const inviter = await openPage(dash.browser);
    await logIn(inviter.page, dash.server.url, hero);
    await apiCall(inviter.page, 'POST', '/invites', { email: legend.email, role: 'member' });
    const acceptUrl = await dash.server.inviteLink(legend.email);
    await inviter.context.close();

    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, legend);
    await page.goto(acceptUrl);
    await page.getByRole('button', { name: 'Join Studio hero' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    await page.goto(`${dash.server.url}/#/settings`);
    await page.getByRole('button', { name: 'Leave Studio hero' }).click();
    await page.getByRole('button', { name: 'Leave workspace' }).click();
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const session = await apiCall<{ org: { name: string }; orgs: unknown[] }>(page, 'GET', '/session');
    expect(session.org.name).toBe('Studio legend');
    expect(session.orgs).toHaveLength(1);
    // One workspace left: the switcher has nothing to switch between.
    await expect.poll(() => page.getByLabel('Workspace').count()).toBe(0);

    // Only one workspace: no leave button, the way out is deleting the account.
    await page.goto(`${dash.server.url}/#/settings`);
    await page.getByText('Studio legend is your only workspace').waitFor();
    expect(await page.getByRole('button', { name: /^Leave / }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the last owner deletes their account: the workspace goes, its published link keeps redirecting', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const link = await apiCall<ApiLink>(page, 'POST', '/links', {
      url: 'https://example.com/forever',
      slug: 'forever',
    });
    await page.goto(`${dash.server.url}/#/settings`);
    await page.getByText('Any of them where you are the only owner is deleted with your account').waitFor();
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await page.getByLabel('Your password').fill(who.password);
    await page.getByRole('button', { name: 'Delete for good' }).click();
    // Logged out, on the public landing page.
    await expect.poll(() => page.getByRole('button', { name: 'Delete my account' }).count()).toBe(0);
    expect((await page.request.get(`${dash.server.url}/api/session`)).status()).toBe(401);

    const visit = await fetch(link.shortUrl, {
      redirect: 'manual',
      headers: { 'user-agent': UA.desktopChrome },
    });
    expect(visit.status).toBe(302);
    expect(visit.headers.get('location')).toBe('https://example.com/forever');
    const login = await fetch(`${dash.server.url}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: who.email, password: who.password }),
    });
    expect(login.status).toBe(401);
    expect(errors).toEqual([]);
    await context.close();
  });
});
