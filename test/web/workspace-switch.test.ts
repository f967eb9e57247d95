import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemberRepo } from '../../src/accounts/member-repo.js';
import { DAY_MS } from '../../src/analytics/model.js';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import type { ClickInput } from '../../src/analytics/write/click-buffer.js';
import type { Link } from '../../src/links/schema.js';
import type { FakeSocialProvider } from '../fakes/social-provider.js';
import { fakeProviderEnv } from './demo.js';
import {
  apiCall,
  browserSkipReason,
  type DashboardServer,
  logIn,
  openPage,
  useDashboard,
} from './harness.js';

/**
 * Issue #32, item 6a: switching workspace shows the new workspace's data on every page, never the old
 * one's. One person is owner of "Owl Studio" and admin of "Lark Studio"; each workspace has its own links,
 * clicks, domain, import, bio page, media kit, contacts, broadcast, Instagram account and DM rule (the fake
 * provider), webhook, key and invite, every one named
 * after its workspace, so a page that shows a name of the other workspace is caught by name.
 */

interface Workspace {
  orgId: string;
  tag: 'owl' | 'lark';
  name: string;
}

/** Makes the owner of `ownOrgId` a member of `otherOrgId` too (what accepting an invite does). */
async function addMembership(
  server: DashboardServer,
  ownOrgId: string,
  otherOrgId: string,
  role: 'admin' | 'member',
) {
  const members = createMemberRepo(server.testStore.store);
  const me = await server.testStore.store.db
    .selectFrom('memberships')
    .select('user_id')
    .where('org_id', '=', ownOrgId)
    .executeTakeFirstOrThrow();
  await members.transaction((trx) =>
    members.insertMembership(trx, {
      userId: me.user_id,
      orgId: otherOrgId,
      role,
      createdAt: new Date().toISOString(),
    }),
  );
}

async function switchTo(page: Page, orgId: string): Promise<void> {
  await apiCall(page, 'POST', '/session/org', { orgId });
}

/** Connects the (fake) Instagram account `@{tag}.insta` to the session's workspace, the way the consent page does. */
async function connectInstagram(page: Page, fake: FakeSocialProvider, tag: string): Promise<string> {
  const userId = tag === 'owl' ? '17841400000000001' : '17841400000000002';
  fake.addAccount(userId, `${tag}.insta`);
  const meta = await apiCall<{ authUrl: string }>(page, 'GET', '/social/meta');
  fake.consentUserId = userId;
  const consent = await fetch(meta.authUrl, { redirect: 'manual' });
  fake.consentUserId = null;
  const back = new URL(consent.headers.get('location') ?? '');
  const account = await apiCall<{ id: string }>(page, 'POST', '/social/connect', {
    code: back.searchParams.get('code'),
    state: back.searchParams.get('state'),
  });
  expect(account.id).toBeTruthy();
  return account.id;
}

/** What one workspace holds, created through the dashboard's own API in that workspace. */
async function seedWorkspace(
  page: Page,
  ws: Workspace,
  store: Parameters<typeof createAnalyticsRepo>[0],
  fake: FakeSocialProvider,
) {
  await switchTo(page, ws.orgId);
  const t = ws.tag;
  const links: Link[] = [];
  for (const [slug, url] of [
    [`${t}-video`, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ'],
    [`${t}-single`, 'https://open.spotify.com/track/4cOdK2wGLETKBW3PvgPWqT'],
    [`${t}-merch`, `https://shop.${t}.example/hoodie`],
  ] as const) {
    links.push(
      await apiCall<Link>(page, 'POST', '/links', {
        url,
        slug,
        tags: [`${t}-tag`],
        ...(slug.endsWith('merch') ? { captureEmails: true } : {}),
      }),
    );
  }
  await apiCall(page, 'POST', '/domains', { hostname: `go.${t}-studio.example` });
  await apiCall(page, 'POST', '/imports', {
    source: 'csv',
    // Owl imports three links, Lark two: the list of imports tells them apart by its counts.
    csv: `url,slug\n${(t === 'owl' ? ['a', 'b', 'c'] : ['a', 'b']).map((x) => `https://${t}.example/${x},${t}-import-${x}`).join('\n')}\n`,
  });
  await apiCall(page, 'PUT', '/bio', { handle: `${t}studio`, title: `${ws.name} bio`, published: true });
  await apiCall(page, 'PUT', '/media-kit', { published: true, show: { taps: true } });
  await apiCall(page, 'POST', '/broadcasts', { subject: `${ws.name} news`, html: '<p>Hello</p>' });
  await apiCall(page, 'POST', '/webhooks', {
    url: `https://hooks.${t}.example/in`,
    events: ['link.created'],
  });
  await apiCall(page, 'POST', '/keys', { name: `${t}-reporting`, scopes: ['all'] });
  await apiCall(page, 'POST', '/invites', { email: `${t}-invitee@example.com`, role: 'viewer' });
  const capture = await page.evaluate(
    async (body) =>
      (
        await fetch('/api/public/capture', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).status,
    { slug: `${t}-merch`, email: `${t}-fan@example.com`, consent: true, website: '' },
  );
  expect(capture).toBeLessThan(300);
  // A few days of clicks, so the analytics pages have top links to name.
  const now = Date.now();
  const clicks: ClickInput[] = links.flatMap((link, index) =>
    Array.from({ length: 4 + index }, (_, n) => ({
      linkId: link.id,
      orgId: ws.orgId,
      at: now - (n % 3) * DAY_MS - 3_600_000,
      bot: false,
      variant: null,
      routed: null,
      country: 'US',
      city: null,
      device: n % 2 === 0 ? 'ios' : 'desktop',
      sourceApp: n % 2 === 0 ? 'instagram' : null,
      referrerHost: null,
      platformKey: link.platformKey,
      tapId: n % 2 === 0 && link.platformKey ? randomUUID() : null,
    })),
  );
  await createAnalyticsRepo(store).writeClicks(clicks);
  const accountId = await connectInstagram(page, fake, t);
  const rule = await apiCall<{ id?: string }>(page, 'POST', '/social/automations', {
    accountId,
    linkId: links[0]?.id,
    dmText: `${ws.name} DM: here is the link`,
    enabled: true,
    trigger: { type: 'comment', match: { mode: 'any', keywords: [`${t}-word`] }, mediaId: null },
  });
  expect(rule.id).toBeTruthy();
}

/** Each dashboard page that shows workspace data, with the names of a workspace it must show. */
const PAGES: {
  path: string;
  heading: string;
  marks: (t: string, name: string, orgId: string) => string[];
}[] = [
  { path: '/links', heading: 'Links', marks: (t) => [`${t}-video`, `${t}-single`, `${t}-merch`] },
  { path: '/analytics', heading: 'Analytics', marks: (t) => [`${t}-single`, `${t}-merch`] },
  { path: '/domains', heading: 'Domains', marks: (t) => [`go.${t}-studio.example`] },
  { path: '/imports', heading: 'Import links', marks: (t) => [t === 'owl' ? '3 imported' : '2 imported'] },
  { path: '/bio', heading: 'Bio page', marks: (t, name) => [`${t}studio`, `${name} bio`] },
  { path: '/media-kit', heading: 'Media kit', marks: (t) => [`${t}studio`] },
  { path: '/automations', heading: 'DM automations', marks: (t, name) => [`@${t}.insta`, `${name} DM`] },
  { path: '/audience', heading: 'Audience', marks: (t) => [`${t}-fan@example.com`] },
  { path: '/broadcasts', heading: 'Broadcasts', marks: (_t, name) => [`${name} news`] },
  { path: '/webhooks', heading: 'Webhooks', marks: (t) => [`hooks.${t}.example`] },
  { path: '/keys', heading: 'API keys', marks: (t) => [`${t}-reporting`] },
  { path: '/members', heading: 'Members', marks: (t, name) => [`${t}-invitee@example.com`, name] },
  { path: '/audit-log', heading: 'Audit log', marks: (t) => [`${t}-invitee@example.com`] },
  // By id: the account cards below list every workspace one owns, by name, on purpose.
  { path: '/settings', heading: 'Plan & settings', marks: (_t, _name, orgId) => [orgId] },
];

describe.skipIf(browserSkipReason !== null)('dashboard: switching workspace (issue #32, 6a)', () => {
  let fake: FakeSocialProvider | undefined;
  const dash = useDashboard(async () => {
    const provider = await fakeProviderEnv();
    fake = provider.fake;
    return provider.env;
  });
  afterAll(async () => fake?.stop());

  it('every page shows the new workspace and nothing of the old one, right after the switch', async () => {
    const owl = await dash.server.user('legend');
    const larkOwner = await dash.server.user('legend');
    await addMembership(dash.server, owl.orgId, larkOwner.orgId, 'admin');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, owl);
    const A: Workspace = { orgId: owl.orgId, tag: 'owl', name: 'Owl Studio' };
    const B: Workspace = { orgId: larkOwner.orgId, tag: 'lark', name: 'Lark Studio' };
    for (const ws of [A, B]) {
      await dash.server.testStore.store.db
        .updateTable('organizations')
        .set({ name: ws.name })
        .where('id', '=', ws.orgId)
        .execute();
      await seedWorkspace(page, ws, dash.server.testStore.store, fake as FakeSocialProvider);
    }
    await switchTo(page, A.orgId);
    await page.reload();
    const switcher = page.getByLabel('Workspace');
    await expect.poll(() => switcher.locator('option:checked').textContent()).toBe('Owl Studio (Owner)');

    const main = page.locator('main');
    let from = A;
    for (const { path, heading, marks } of PAGES) {
      const to = from === A ? B : A;
      await page.goto(`${dash.server.url}/#${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      const oldMarks = marks(from.tag, from.name, from.orgId);
      const newMarks = marks(to.tag, to.name, to.orgId);
      // The page shows its own workspace first (so the check below is not vacuous).
      await expect
        .poll(() => main.textContent(), { message: `${path} before` })
        .toSatisfy((text) => oldMarks.every((mark) => text?.includes(mark)));
      // From the moment the switcher shows the new workspace, no mutation of the page may show an old name.
      await page.evaluate(
        ({ oldMarks, toId }) => {
          const w = window as unknown as { leaks: string[]; leakObserver?: MutationObserver };
          w.leaks = [];
          w.leakObserver?.disconnect();
          const check = () => {
            const select = document.getElementById('org-switcher') as HTMLSelectElement | null;
            if (select?.value !== toId) return;
            const text = document.querySelector('main')?.textContent ?? '';
            for (const mark of oldMarks) if (text.includes(mark)) w.leaks.push(mark);
          };
          w.leakObserver = new MutationObserver(check);
          w.leakObserver.observe(document.body, { subtree: true, childList: true, characterData: true });
        },
        { oldMarks, toId: to.orgId },
      );
      await switcher.selectOption({ label: `${to.name} (${to === A ? 'Owner' : 'Admin'})` });
      await expect
        .poll(() => main.textContent(), { message: `${path} after switching to ${to.name}` })
        .toSatisfy((text) => newMarks.every((mark) => text?.includes(mark)));
      const text = (await main.textContent()) ?? '';
      expect(
        oldMarks.filter((mark) => text.includes(mark)),
        `${path}: ${from.name} still shown`,
      ).toEqual([]);
      expect(await page.evaluate(() => (window as unknown as { leaks: string[] }).leaks), path).toEqual([]);
      // The switch keeps the page (a list page means the same thing in every workspace).
      expect(new URL(page.url()).hash, path).toBe(`#${path}`);
      from = to;
    }
    expect(errors).toEqual([]);
    await context.close();
  });
  it("Legend to Sidekick on the links page (the issue's case): the count, the cap and the rows are Sidekick's", async () => {
    const legend = await dash.server.user('legend');
    const sidekick = await dash.server.user('sidekick');
    await addMembership(dash.server, legend.orgId, sidekick.orgId, 'member');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, legend);
    const legendLinks: Link[] = [];
    for (let i = 0; i < 11; i++)
      legendLinks.push(
        await apiCall<Link>(page, 'POST', '/links', {
          url: `https://legend.example/${i}`,
          slug: `legend-${i}`,
        }),
      );
    await switchTo(page, sidekick.orgId);
    for (let i = 0; i < 2; i++)
      // Sidekick has no custom slugs: the destinations tell the workspaces apart.
      expect(
        await apiCall<Link>(page, 'POST', '/links', { url: `https://sidekick.example/${i}` }),
      ).toMatchObject({
        destination: `https://sidekick.example/${i}`,
      });
    await switchTo(page, legend.orgId);

    // From a one-link page of Legend: that link means nothing in Sidekick, so the switch lands on the list.
    await page.goto(`${dash.server.url}/#/links/${legendLinks[0]?.id}`);
    await page.getByRole('heading', { name: 'Edit link', level: 1 }).waitFor();
    await page.getByLabel('Workspace').selectOption({ label: 'Studio sidekick (Member)' });
    await page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
    const main = page.locator('main');
    await expect.poll(() => main.textContent()).toContain('2 of 25 live links on Sidekick');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    expect(await main.textContent()).not.toContain('legend.example');
    expect(await main.textContent()).toContain('sidekick.example/1');

    // And back, from the list: Legend's eleven, none of Sidekick's.
    await page.getByLabel('Workspace').selectOption({ label: 'Studio legend (Owner)' });
    await expect.poll(() => main.textContent()).toContain('11 of 100,000 live links on Legend');
    await expect.poll(() => page.locator('tbody tr').count()).toBe(11);
    expect(await main.textContent()).not.toContain('sidekick.example');
    expect(await main.textContent()).toContain('legend.example/10');
    expect(new URL(page.url()).hash).toBe('#/links');
    expect(errors).toEqual([]);
    await context.close();
  });
});
