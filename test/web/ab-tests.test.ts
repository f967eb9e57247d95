import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAnalyticsRepo } from '../../src/analytics/repo.js';
import type { ClickInput } from '../../src/analytics/write/click-input.js';
import { browserSkipReason, logIn, openPage, useDashboard } from './harness.js';

/**
 * The A/B test panel on a link's analytics page (issue #33, item 5) in Chromium: the readout of a seeded
 * test (B opens 60 of 100 taps, A 30 of 100), promoting B through the confirmation, the concluded result,
 * and the short link going to B afterwards.
 */

const A = 'https://example.com/variant-a';
const B = 'https://example.com/variant-b';

describe.skipIf(browserSkipReason !== null)('dashboard: an A/B test that concludes, in Chromium', () => {
  const dash = useDashboard();

  /** 100 visits per variant, every one a tap that reported: `opened[i]` of them opened the app. */
  async function seed(orgId: string, linkId: string, opened: number[]) {
    const repo = createAnalyticsRepo(dash.server.testStore.store);
    const at = Date.now();
    const clicks: ClickInput[] = [];
    const taps: { tapId: string; variant: number; opened: boolean }[] = [];
    opened.forEach((count, variant) => {
      for (let i = 0; i < 100; i++) {
        const tapId = randomUUID();
        taps.push({ tapId, variant, opened: i < count });
        clicks.push({
          linkId,
          orgId,
          at,
          bot: false,
          variant,
          routed: variant === 0 ? A : B,
          country: 'US',
          city: null,
          device: 'ios',
          sourceApp: 'instagram',
          referrerHost: null,
          platformKey: null,
          tapId,
        });
      }
    });
    await repo.writeClicks(clicks);
    for (const tap of taps) {
      await repo.insertOutcome({
        tapId: tap.tapId,
        orgId,
        linkId,
        day: Math.floor(at / 86_400_000),
        outcome: tap.opened ? 'opened' : 'browser',
        variant: tap.variant,
        platformKey: null,
        at,
      });
    }
  }

  it('shows visits, open rates and the probability of being best; promotes B with a confirmation', async () => {
    const who = await dash.server.user('hero');
    const { page, errors, context } = await openPage(dash.browser);
    await logIn(page, dash.server.url, who);
    const created = await page.request.post(`${dash.server.url}/api/links`, {
      data: {
        url: A,
        ab: [
          { u: A, w: 1 },
          { u: B, w: 1 },
        ],
      },
    });
    expect(created.status()).toBe(201);
    const link = (await created.json()) as { id: string; slug: string };
    await seed(who.orgId, link.id, [30, 60]);

    await page.goto(`${dash.server.url}/#/links/${link.id}/analytics`);
    const panel = page.getByRole('heading', { name: 'A/B test' }).locator('xpath=ancestor::section');
    const rows = panel.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await expect.poll(() => panel.getByTestId('ab-status').textContent()).toContain('Running since');
    const [rowA, rowB] = await rows.allTextContents();
    expect(rowA).toContain(A);
    expect(rowA).toContain('30 / 100');
    expect(rowA).toContain('30%');
    expect(rowB).toContain('60 / 100');
    expect(rowB).toContain('60%');
    expect(await rows.nth(0).getByTestId('probability-best').textContent()).toBe('< 0.1%');
    expect(await rows.nth(1).getByTestId('probability-best').textContent()).toBe('> 99.9%');
    expect(await panel.textContent()).toContain('Leading now: variant B');

    // Promote B: a confirmation names the URL; Cancel changes nothing, confirming promotes.
    await panel.getByRole('button', { name: 'Promote B' }).click();
    const dialog = page.getByRole('dialog');
    await expect.poll(() => dialog.textContent()).toContain(B);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    await panel.getByRole('button', { name: 'Promote B' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Promote B' }).click();

    // The concluded result: who won, no more Promote buttons, the numbers kept, the destination changed.
    await expect.poll(() => panel.getByTestId('ab-status').textContent()).toContain('Variant B was promoted');
    await expect.poll(() => panel.getByRole('button', { name: /^Promote/ }).count()).toBe(0);
    expect(await rows.nth(1).textContent()).toContain('60 / 100');
    await expect.poll(() => page.locator('.dest').textContent()).toContain(B);
    const after = await (await page.request.get(`${dash.server.url}/api/links/${link.id}`)).json();
    expect(after).toMatchObject({ destination: B, ab: null });
    const visit = await fetch(`${dash.server.url}/${link.slug}`, { redirect: 'manual' });
    expect(visit.status).toBe(302);
    expect(visit.headers.get('location')).toBe(B);

    // A reload reads the concluded test, with it in the history.
    await page.reload();
    await expect.poll(() => panel.getByTestId('ab-status').textContent()).toContain('Variant B was promoted');
    await expect.poll(() => panel.getByText('Concluded tests (1)').count()).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });
});
