import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SmtpSink, startSmtp } from '../broadcasts/smtp.js';
import { FakeSocialProvider } from '../fakes/social-provider.js';
import {
  apiCall,
  browserSkipReason,
  type DashboardServer,
  fitsWidth,
  logIn,
  openPage,
  useDashboard,
} from './harness.js';

/**
 * The creator pages in Chromium against the real hosted service: the audience list (capture through the
 * public route, detail, delete, CSV export), broadcasts sent through a real SMTP server on loopback, and
 * DM automations connected through the fake Instagram's consent redirect and the real /social/callback.
 */

/** `CREATOR_SHOTS=1` also writes full-page screenshots to /tmp for a visual check. */
async function shot(page: Page, name: string): Promise<void> {
  if (!process.env.CREATOR_SHOTS) return;
  const width = page.viewportSize()?.width ?? 0;
  await page.screenshot({ path: `/tmp/creator-${name}-${width}.png`, fullPage: true });
}

async function capture(server: DashboardServer, slug: string, email: string, country: string) {
  const response = await fetch(`${server.url}/api/public/capture`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'cf-ipcountry': country },
    body: JSON.stringify({ slug, email, consent: true, website: '' }),
  });
  expect(response.status).toBe(204);
}

describe.skipIf(browserSkipReason !== null)('dashboard: audience, broadcasts and DM automations', () => {
  describe('audience and broadcasts (hero, real SMTP on loopback)', () => {
    let smtp: SmtpSink;
    let who: { orgId: string; email: string; password: string };
    // Before useDashboard: afterAll hooks unwind in reverse, so the server closes before the mail sink.
    afterAll(async () => {
      await smtp?.close();
    });
    const dash = useDashboard(async () => {
      smtp = await startSmtp();
      return { SMTP_URL: smtp.url, MAIL_FROM: 'Studio <news@studio.test>' };
    });
    beforeAll(async () => {
      who = await dash.server.user('hero');
    });

    for (const width of [1280, 375]) {
      it(`lists captured contacts with the total, shows consent, deletes and exports (${width} px)`, async () => {
        const { page, errors, context } = await openPage(dash.browser, width);
        await logIn(page, dash.server.url, who);
        const link = await apiCall<{ slug: string }>(page, 'POST', '/links', {
          url: 'https://example.com',
          captureEmails: true,
        });
        const first = `ada-${width}@example.org`;
        const second = `grace-${width}@example.org`;
        await capture(dash.server, link.slug, first, 'DE');
        await capture(dash.server, link.slug, second, 'FR');
        const before = await apiCall<{ count: number }>(page, 'GET', '/audience');

        await page.goto(`${dash.server.url}/#/audience`);
        await page.getByRole('heading', { name: 'Audience', level: 1 }).waitFor();
        const table = page.locator('table');
        await table.getByText(first).waitFor();
        await expect.poll(() => table.getByText(second).count()).toBe(1);
        await expect
          .poll(() => page.locator('.audience-count').textContent())
          .toBe(`${before.count} contacts`);
        const row = page.locator('tr', { hasText: first });
        await expect.poll(() => row.textContent()).toContain(`/${link.slug}`);
        await expect.poll(() => row.textContent()).toContain('DE');

        // The search box filters on the client.
        await page.getByLabel('Search contacts').fill('grace');
        await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
        await page.getByLabel('Search contacts').fill('');
        expect(await fitsWidth(page)).toBe(true);
        await shot(page, 'audience');

        // Detail: the consent text as stored, naming the organization.
        await page.getByRole('button', { name: `Details of ${first}` }).click();
        const dialog = page.getByRole('dialog', { name: 'Contact' });
        const consent = dialog.locator('blockquote.consent');
        await consent.waitFor();
        await expect
          .poll(() => consent.textContent())
          .toBe(
            'I agree to receive emails from Studio hero. I can unsubscribe at any time with the link in every email.',
          );
        await expect.poll(() => dialog.textContent()).toContain('Subscribed');
        await shot(page, 'audience-detail');
        await dialog.getByRole('button', { name: 'Close' }).click();

        // Delete: confirm, gone from the table and from the API.
        await page.getByRole('button', { name: `Delete ${second}` }).click();
        await page
          .getByRole('dialog', { name: 'Delete this contact?' })
          .getByRole('button', { name: 'Delete contact' })
          .click();
        await page.getByText(`${second} was deleted`).waitFor();
        await expect.poll(() => table.getByText(second).count()).toBe(0);
        const after = await apiCall<{ count: number; contacts: { email: string }[] }>(
          page,
          'GET',
          '/audience',
        );
        expect(after.count).toBe(before.count - 1);
        expect(after.contacts.map((contact) => contact.email)).not.toContain(second);
        await expect
          .poll(() => page.locator('.audience-count').textContent())
          .toBe(`${after.count} ${after.count === 1 ? 'contact' : 'contacts'}`);

        // Export: a plain download of the CSV.
        const [download] = await Promise.all([
          page.waitForEvent('download'),
          page.getByRole('link', { name: 'Export CSV' }).click(),
        ]);
        const csv = await readFile((await download.path()) as string, 'utf8');
        const lines = csv.trim().split(/\r?\n/);
        expect(lines[0]).toBe('email,source_slug,country,consent_text,captured_at');
        expect(csv).toContain(first);
        expect(csv).not.toContain(second);
        expect(errors).toEqual([]);
        await context.close();
      });
    }

    it('creates a draft, edits it, sends it and shows it sent with counts; the mail arrives', async () => {
      const { page, errors, context } = await openPage(dash.browser, 1280);
      await logIn(page, dash.server.url, who);
      const audience = await apiCall<{ count: number; contacts: { email: string }[] }>(
        page,
        'GET',
        '/audience',
      );
      expect(audience.count).toBeGreaterThan(0);

      await page.goto(`${dash.server.url}/#/broadcasts`);
      await page.getByRole('heading', { name: 'Broadcasts', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'New broadcast' }).click();
      // The server's rule at the field: an empty body is refused before anything is saved.
      await page.getByLabel('Subject').fill('Draft subject');
      await page.getByRole('button', { name: 'Create draft' }).click();
      await expect
        .poll(() => page.locator('.field-invalid .field-error').textContent())
        .toBe('Write the email body');
      await page.getByLabel('Email body (HTML)').fill('<h1>New video</h1><p>It is out now.</p>');
      await page.getByRole('button', { name: 'Create draft' }).click();
      await page.getByText('Draft “Draft subject” saved.').waitFor();
      const row = page.locator('tbody tr', { hasText: 'Draft subject' });
      await expect.poll(() => row.locator('.badge').textContent()).toBe('Draft');

      // Edit the draft (PATCH).
      await row.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Subject').fill('The new video is out');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.getByText('Draft “The new video is out” updated.').waitFor();
      await shot(page, 'broadcasts-draft');

      // Send: the dialog names the recipient count, then the row settles as sent.
      const sent = page.locator('tbody tr', { hasText: 'The new video is out' });
      await sent.getByRole('button', { name: 'Send…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send this broadcast?' });
      await expect
        .poll(() => dialog.textContent())
        .toContain(`${audience.count} ${audience.count === 1 ? 'contact' : 'contacts'}`);
      await dialog.getByRole('button', { name: 'Send now' }).click();
      await sent.locator('.badge', { hasText: 'Sent' }).waitFor({ timeout: 20_000 });
      await expect.poll(() => sent.locator('.counts').textContent()).toContain(`${audience.count} sent`);
      await page.getByText(/“The new video is out” was sent to/).waitFor();
      await shot(page, 'broadcasts-sent');
      await page.setViewportSize({ width: 375, height: 812 });
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, 'broadcasts-sent');

      expect(smtp.messages.flatMap((mail) => mail.to).sort()).toEqual(
        audience.contacts.map((contact) => contact.email).sort(),
      );
      expect(smtp.messages[0]?.headers.get('subject')).toBe('The new video is out');
      // A sent broadcast is no longer editable.
      await expect.poll(() => sent.getByRole('button', { name: 'Edit' }).count()).toBe(0);

      // The contact's detail lists what they received.
      const someone = audience.contacts[0]?.email as string;
      await page.goto(`${dash.server.url}/#/audience`);
      await page.getByRole('button', { name: `Details of ${someone}` }).click();
      const received = page.getByRole('dialog', { name: 'Contact' }).locator('.received li');
      await expect
        .poll(() => received.locator('.received-subject').textContent())
        .toBe('The new video is out');
      await expect.poll(() => received.locator('.badge').textContent()).toBe('Sent');
      expect(errors).toEqual([]);
      await context.close();
    });
  });

  describe('DM automations (legend, fake Instagram on loopback)', () => {
    let fake: FakeSocialProvider;
    // Before useDashboard: afterAll hooks unwind in reverse, so the server closes before the fake stops.
    afterAll(async () => {
      await fake?.stop();
    });
    const dash = useDashboard(async () => {
      fake = await new FakeSocialProvider().start();
      return {
        SOCIAL_APP_ID: fake.appId,
        SOCIAL_APP_SECRET: fake.appSecret,
        TOKEN_VAULT_KEY: randomBytes(32).toString('base64'),
        SOCIAL_AUTHORIZE_BASE: fake.origin,
        SOCIAL_OAUTH_BASE: fake.origin,
        SOCIAL_API_BASE: fake.origin,
      };
    });

    it('connects Instagram through the callback, refuses a raw link at the field, creates and pauses a rule', async () => {
      const who = await dash.server.user('legend');
      const { page, errors, context } = await openPage(dash.browser, 1280);
      await logIn(page, dash.server.url, who);
      const link = await apiCall<{ id: string; slug: string }>(page, 'POST', '/links', {
        url: 'https://example.com/guide',
      });

      await page.goto(`${dash.server.url}/#/automations`);
      await page.getByRole('heading', { name: 'DM automations', level: 1 }).waitFor();
      await page.getByText('No Instagram account connected yet.', { exact: false }).waitFor();
      await shot(page, 'automations-empty');

      // The consent page approves and redirects to /social/callback?code&state; the dashboard finishes.
      const userId = '17841400000000123';
      fake.addAccount(userId, 'night.owl.studio');
      fake.consentUserId = userId;
      await page.getByRole('link', { name: 'Connect Instagram' }).click();
      await page.getByText('Instagram connected as @night.owl.studio').waitFor();
      expect(new URL(page.url()).hash).toBe('#/automations');
      const account = page.locator('.account', { hasText: '@night.owl.studio' });
      await expect.poll(() => account.locator('.badge').textContent()).toBe('Active');

      // A link typed into the DM text is refused at the field, naming what to remove.
      await page.getByRole('button', { name: 'New rule' }).click();
      await page.getByLabel('Link in the DM').selectOption(link.id);
      await page.getByLabel('DM text').fill('see example.com');
      await page.getByLabel('Keywords').fill('guide, Guide, link');
      await page.getByRole('button', { name: 'Create rule' }).click();
      const dmField = page.locator('.field', { has: page.getByLabel('DM text') });
      await expect
        .poll(() => dmField.locator('.field-error').textContent())
        .toBe('Remove “example.com”: links go in the link field, not the text');
      await expect.poll(() => page.getByLabel('DM text').getAttribute('aria-invalid')).toBe('true');
      await shot(page, 'automations-error');
      await page.setViewportSize({ width: 375, height: 812 });
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, 'automations-error');
      await page.setViewportSize({ width: 1280, height: 860 });

      await page.getByLabel('DM text').fill('Here is the guide you asked for');
      await page.getByRole('button', { name: 'Create rule' }).click();
      await page.getByText('Rule created.').waitFor();
      const rule = page.locator('.rule', { hasText: 'Here is the guide you asked for' });
      // The server cleaned the keywords (case-insensitive duplicates dropped).
      await expect
        .poll(() => rule.locator('h3').textContent())
        .toBe('Comments on any post containing “guide”, “link”');
      await expect.poll(() => rule.locator('.rule-head .badge').textContent()).toBe('Active');
      await expect.poll(() => rule.locator('.dm-link').textContent()).toContain(`/${link.slug}`);

      // Firing history (empty) expands under the rule.
      await rule.getByRole('button', { name: 'Show history' }).click();
      await rule.getByText('Nothing yet.', { exact: false }).waitFor();

      await rule.getByRole('button', { name: 'Pause' }).click();
      await rule.locator('.rule-head .badge', { hasText: 'Paused' }).waitFor();
      await rule.getByRole('button', { name: 'Resume' }).waitFor();
      const stored = await apiCall<{ automations: { enabled: boolean; dmText: string }[] }>(
        page,
        'GET',
        '/social/automations',
      );
      expect(stored.automations).toEqual([
        expect.objectContaining({ enabled: false, dmText: 'Here is the guide you asked for' }),
      ]);
      // Pausing keeps the history panel open.
      await rule.getByText('Nothing yet.', { exact: false }).waitFor();
      await shot(page, 'automations');
      await page.setViewportSize({ width: 375, height: 812 });
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, 'automations');
      expect(errors).toEqual([]);
      await context.close();
    });

    it('a forged state comes back as a plain error banner on the automations page', async () => {
      const who = await dash.server.user('legend');
      const { page, context } = await openPage(dash.browser, 375);
      await logIn(page, dash.server.url, who);
      await page.goto(`${dash.server.url}/social/callback?code=abc&state=forged`);
      await page.getByText('This connection was not started from your workspace', { exact: false }).waitFor();
      expect(new URL(page.url()).hash).toBe('#/automations');
      await shot(page, 'automations-forged');
      await context.close();
    });

    it('legend: a segment filters the audience, a draft targets it, and without SMTP the send error is plain', async () => {
      const who = await dash.server.user('legend');
      const { page, errors, context } = await openPage(dash.browser, 375);
      await logIn(page, dash.server.url, who);
      const link = await apiCall<{ slug: string }>(page, 'POST', '/links', {
        url: 'https://example.com/list',
        captureEmails: true,
      });
      await capture(dash.server, link.slug, 'berlin@example.org', 'DE');
      await capture(dash.server, link.slug, 'paris@example.org', 'FR');

      await page.goto(`${dash.server.url}/#/broadcasts`);
      await page.getByRole('heading', { name: 'Broadcasts', level: 1 }).waitFor();
      // The server's validation at the field: a country is two letters.
      await page.getByLabel('Segment name').fill('Germany');
      await page.getByLabel('Country').fill('D');
      await page.getByRole('button', { name: 'Create segment' }).click();
      const countryField = page.locator('.field', { has: page.getByLabel('Country') });
      await expect
        .poll(() => countryField.locator('.field-error').textContent())
        .toBe('country is an ISO 3166 alpha-2 code');
      await page.getByLabel('Country').fill('de');
      await page.getByRole('button', { name: 'Create segment' }).click();
      await page.getByText('Segment “Germany” matches 1 contact.').waitFor();
      const segment = page.locator('.segment-list li', { hasText: 'Germany' });
      await expect.poll(() => segment.textContent()).toContain('Country DE');

      await page.getByRole('button', { name: 'New broadcast' }).click();
      await page.getByLabel('Subject').fill('Hallo Berlin');
      await page.getByLabel('Email body (HTML)').fill('<p>Tour dates</p>');
      await page.getByLabel('Send to').selectOption({ label: 'Germany (1)' });
      await page.getByRole('button', { name: 'Create draft' }).click();
      const row = page.locator('tbody tr', { hasText: 'Hallo Berlin' });
      await expect.poll(() => row.textContent()).toContain('To Germany');
      await row.getByRole('button', { name: 'Send…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Send this broadcast?' });
      await expect.poll(() => dialog.textContent()).toContain('1 contact in Germany');
      await dialog.getByRole('button', { name: 'Send now' }).click();
      await expect
        .poll(() => dialog.getByRole('alert').textContent())
        .toContain('Outbound mail (SMTP_URL) is not configured');
      expect(await fitsWidth(page)).toBe(true);
      await shot(page, 'broadcasts-no-smtp');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => row.locator('.badge').textContent()).toBe('Draft');
      await shot(page, 'broadcasts-legend');

      await segment.getByRole('button', { name: 'Delete segment Germany' }).click();
      await page
        .getByRole('dialog', { name: 'Delete this segment?' })
        .getByRole('button', { name: 'Delete segment' })
        .click();
      await page.getByText('Segment “Germany” deleted.').waitFor();
      const left = await apiCall<{ segments: unknown[] }>(page, 'GET', '/segments');
      expect(left.segments).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    });

    it('a sidekick sees upgrade notices for broadcasts and DM automations, and no dead buttons', async () => {
      const who = await dash.server.user('sidekick');
      const { page, errors, context } = await openPage(dash.browser, 375);
      await logIn(page, dash.server.url, who);
      await page.goto(`${dash.server.url}/#/broadcasts`);
      const broadcasts = page.locator('.upgrade[data-feature="broadcasts"]');
      await expect
        .poll(() => broadcasts.textContent())
        .toContain('Email broadcasts is part of Hero and Legend.');
      await expect.poll(() => page.getByRole('button', { name: 'New broadcast' }).count()).toBe(0);
      await page.getByRole('heading', { name: 'Send history' }).waitFor();
      await shot(page, 'broadcasts-sidekick');

      await page.goto(`${dash.server.url}/#/automations`);
      const dm = page.locator('.upgrade[data-feature="dmAutomations"]');
      await expect
        .poll(() => dm.textContent())
        .toContain('Instagram DM automations is part of the Legend plan.');
      await page.getByRole('heading', { name: 'Rules', exact: true }).waitFor();
      await expect.poll(() => page.getByRole('link', { name: 'Connect Instagram' }).count()).toBe(0);
      await expect.poll(() => page.getByRole('button', { name: 'New rule' }).count()).toBe(0);
      await shot(page, 'automations-sidekick');

      await page.goto(`${dash.server.url}/#/audience`);
      await page.locator('.upgrade[data-feature="audienceCapture"]').waitFor();
      await page.getByText('No contacts yet').waitFor();
      await shot(page, 'audience-sidekick');
      expect(errors).toEqual([]);
      await context.close();
    });
  });
});
