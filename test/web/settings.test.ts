import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSkipReason, fitsWidth, logIn, openPage, until, useDashboard } from './harness.js';

/** API keys, webhooks and the plan page in Chromium, against the real service. */

const shots = process.env.SHOTS;
async function shot(page: Page, name: string) {
  if (!shots) return;
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: width < 600 ? 812 : 860 });
    await page.screenshot({ path: `${shots}/${name}-${width}.png`, fullPage: true });
    expect(await fitsWidth(page)).toBe(true);
  }
  await page.setViewportSize({ width: 1280, height: 860 });
}

interface Delivery {
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

/** A tiny webhook receiver on 127.0.0.1 (allowed by WEBHOOK_ALLOW_PRIVATE_TARGETS=1 in the harness). */
async function startReceiver(): Promise<{ url: string; deliveries: Delivery[]; close: () => Promise<void> }> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      deliveries.push({ headers: request.headers, raw: Buffer.concat(chunks) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    deliveries,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(browserSkipReason !== null)('dashboard: API keys, webhooks and plans', () => {
  const dash = useDashboard();
  const me = (key: string) =>
    fetch(`${dash.server.url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });

  it('a legend mints a key that works once shown, revokes it, and the next call is 401', async () => {
    const who = await dash.server.user('legend');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await expect
      .poll(() => page.locator('pre code').textContent())
      .toBe(`curl -H "Authorization: Bearer svc_…" ${dash.server.url}/v1/me`);
    await expect
      .poll(() => page.getByRole('link', { name: 'API reference' }).getAttribute('href'))
      .toBe('/docs');

    await page.getByLabel('Name').fill('Deploy script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key').locator('code');
    await shown.waitFor();
    const key = (await shown.textContent()) ?? '';
    expect(key).toMatch(/^svc_[A-Za-z0-9_-]{20,}$/);
    await expect.poll(() => page.getByText('it will not be shown again').count()).toBe(1);
    const ok = await me(key);
    expect(ok.status).toBe(200);
    expect((await ok.json()).orgId).toBe(who.orgId);
    const row = page.getByRole('row', { name: new RegExp(key.slice(0, 8)) });
    await expect.poll(() => row.textContent()).toContain('Active');
    await shot(page, 'keys-legend');

    // Revoke through the confirm dialog.
    await row.getByRole('button', { name: `Revoke key ${key.slice(0, 8)}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await expect.poll(() => dialog.textContent()).toContain('very next request');
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('status').filter({ hasText: 'is revoked' }).waitFor();
    expect((await me(key)).status).toBe(401);
    await expect.poll(() => row.textContent()).toContain('Revoked');
    // The shown key is gone with the revocation, and a reload never shows it again.
    await page.reload();
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByRole('row', { name: new RegExp(key.slice(0, 8)) }).waitFor();
    expect(await page.content()).not.toContain(key);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a legend adds a webhook, sees the secret once (it signs deliveries), pauses it, and deletes it after a downgrade', async () => {
    const receiver = await startReceiver();
    try {
      const who = await dash.server.user('legend');
      const { page, errors, context } = await openPage(dash.browser);
      await logIn(page, dash.server.url, who);
      await page.goto(`${dash.server.url}/#/webhooks`);
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await expect.poll(() => page.locator('.count-pill').textContent()).toBe('0 of 5 used');

      // Server validation lands at the fields.
      await page.getByLabel('Endpoint URL').fill('not a url');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await expect
        .poll(() => page.locator('.field-invalid .field-error').textContent())
        .toBe('The webhook URL must be an absolute https:// URL');
      await expect
        .poll(() => page.locator('#webhook-events-error').textContent())
        .toBe('Subscribe to at least one event');

      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('checkbox', { name: /link\.created/ }).check();
      await page.getByRole('checkbox', { name: /app\.opened/ }).check();
      await page.getByRole('button', { name: 'Add webhook' }).click();
      const secretBox = page.getByTestId('signing-secret').locator('code');
      await secretBox.waitFor();
      const secret = (await secretBox.textContent()) ?? '';
      expect(secret).toMatch(/^whsec_/);
      await expect.poll(() => page.getByText('x-service-signature').first().isVisible()).toBe(true);
      await expect.poll(() => page.locator('.count-pill').textContent()).toBe('1 of 5 used');
      const item = page.locator('.hook', { hasText: receiver.url });
      await expect
        .poll(() => item.getByRole('list', { name: 'Events' }).textContent())
        .toBe('link.createdapp.opened');
      await expect.poll(() => item.textContent()).toContain('Active');
      await shot(page, 'webhooks-legend');

      // The secret shown is the one that signs: a new link sends link.created, signed with it.
      const created = await page.request.post(`${dash.server.url}/api/links`, {
        data: { url: 'https://example.com/signed' },
      });
      expect(created.status()).toBe(201);
      const deliveries = await until(
        () => receiver.deliveries,
        (list) => list.length >= 1,
      );
      const delivery = deliveries[0] as Delivery;
      expect(delivery.headers['x-service-event']).toBe('link.created');
      expect(delivery.headers['x-service-signature']).toBe(
        createHmac('sha256', secret).update(delivery.raw).digest('hex'),
      );

      // Pause: the API agrees.
      await item.getByRole('button', { name: `Pause ${receiver.url}` }).click();
      await item.getByRole('button', { name: `Resume ${receiver.url}` }).waitFor();
      await expect.poll(() => item.textContent()).toContain('Paused');
      const listed = await (await page.request.get(`${dash.server.url}/api/webhooks`)).json();
      expect(listed.webhooks).toHaveLength(1);
      expect(listed.webhooks[0]).toMatchObject({ url: receiver.url, active: false });

      // The secret never comes back.
      await page.reload();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await item.waitFor();
      expect(await page.content()).not.toContain(secret);

      // Downgraded: the notice replaces the form, and the existing webhook can still be deleted.
      await dash.server.accounts.setTier(who.orgId, 'sidekick');
      await page.reload();
      await page.locator('[data-feature="webhooks"]').waitFor();
      await expect.poll(() => page.getByRole('button', { name: 'Add webhook' }).count()).toBe(0);
      await expect.poll(() => item.getByRole('button', { name: /Resume/ }).count()).toBe(0);
      await item.getByRole('button', { name: `Delete ${receiver.url}` }).click();
      await page
        .getByRole('dialog', { name: 'Delete this webhook?' })
        .getByRole('button', { name: 'Delete webhook' })
        .click();
      await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
      expect((await (await page.request.get(`${dash.server.url}/api/webhooks`)).json()).webhooks).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    } finally {
      await receiver.close();
    }
  });

  it('a sidekick sees the upgrade notices on keys and webhooks and the plan table highlighting Hero', async () => {
    const who = await dash.server.user('sidekick');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);

    await page.goto(`${dash.server.url}/#/keys`);
    await expect
      .poll(() => page.locator('[data-feature="api"]').textContent())
      .toContain('API access is part of the Legend plan. You are on Sidekick.');
    await expect.poll(() => page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await shot(page, 'keys-sidekick');

    await page.goto(`${dash.server.url}/#/webhooks`);
    await expect
      .poll(() => page.locator('[data-feature="webhooks"]').textContent())
      .toContain('Webhooks is part of the Legend plan.');
    await expect.poll(() => page.getByLabel('Endpoint URL').count()).toBe(0);
    await shot(page, 'webhooks-sidekick');

    // Two live links of 25.
    for (const url of ['https://example.com/1', 'https://example.com/2'])
      expect((await page.request.post(`${dash.server.url}/api/links`, { data: { url } })).status()).toBe(201);
    await page.goto(`${dash.server.url}/#/settings`);
    await page.getByRole('heading', { name: 'Plan & settings', level: 1 }).waitFor();
    // The heading renders before the link count arrives: wait for the count itself.
    await page.locator('.usage-head', { hasText: /Live links\s*2 of 25/ }).waitFor();
    await expect
      .poll(() => page.getByRole('progressbar', { name: 'Live links used' }).getAttribute('aria-valuenow'))
      .toBe('2');
    const table = page.locator('.plan-table');
    await expect.poll(() => table.locator('thead th.next').textContent()).toBe('HeroNext');
    await expect.poll(() => table.locator('thead th.current').textContent()).toBe('SidekickYour plan');
    const unlocked = await table.locator('tr.unlock th[scope="row"]').allTextContents();
    // Hero's own features and its link cap are highlighted; Legend's are not.
    expect(unlocked).toContain('Live links');
    expect(unlocked).toContain('Custom slugs (unlocked by Hero)');
    expect(unlocked).toContain('A/B testing (unlocked by Hero)');
    expect(unlocked.some((name) => name.startsWith('API access'))).toBe(false);
    expect(unlocked.some((name) => name.startsWith('QR codes'))).toBe(false);
    await expect
      .poll(() => table.locator('tr', { hasText: 'Live links' }).textContent())
      .toMatch(/25\s*1,000\s*100,000/);
    // No billing: the operator's command with this org id, and no dead upgrade button.
    await expect
      .poll(() => page.locator('.secret-box.command code').textContent())
      .toBe(`linkhop org set-tier ${who.orgId} hero`);
    await expect.poll(() => page.getByRole('button', { name: /upgrade/i }).count()).toBe(0);
    await shot(page, 'settings-sidekick');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a legend is told every feature is theirs', async () => {
    const who = await dash.server.user('legend');
    const { page, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    await page.goto(`${dash.server.url}/#/settings`);
    await expect.poll(() => page.locator('.compare-lede').textContent()).toContain('the top plan');
    await expect.poll(() => page.locator('.plan-table tr.unlock').count()).toBe(0);
    await expect.poll(() => page.locator('.feature-chips li').count()).toBe(26);
    await shot(page, 'settings-legend');
    await context.close();
  });
});
