import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
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
 * The bio page editor (#/bio) and the media kit settings (#/media-kit) in Chromium, against the real
 * hosted service: claim, blocks (drag and keyboard reordering), publish, theme, plan gates, media kit.
 * BIO_SHOTS=/some/dir also writes full-page screenshots at 1280 and 375 px.
 */

interface CreatedLink {
  id: string;
  shortUrl: string;
}

/** Creates a link through the dashboard API (the page's session cookie: hero has no API key). */
async function createLink(page: Page, url: string): Promise<CreatedLink> {
  const created = await apiCall<CreatedLink>(page, 'POST', '/links', { url });
  expect(created).toMatchObject({ id: expect.any(String), shortUrl: expect.any(String) });
  return created;
}

/** Claims (or updates) the page through the API; PUT /bio answers with the page it stored. */
async function putBio(page: Page, fields: { handle: string; published?: boolean; [key: string]: unknown }) {
  const saved = await apiCall<{ handle: string; published: boolean }>(page, 'PUT', '/bio', fields);
  expect(saved).toMatchObject(fields.published === undefined ? { handle: fields.handle } : fields);
}

/** Page order as the editor lists it: each row's visible name. */
async function editorOrder(page: Page): Promise<string[]> {
  return page.locator('li.blk .blk-name').allTextContents();
}

// Browser-side code is passed as strings: the test project is compiled without the DOM library.

/** Elements that stick out of a phone-wide viewport, for a readable failure. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const limit = document.documentElement.clientWidth;
    return [...document.querySelectorAll('main *')]
      .filter((el) => el.getBoundingClientRect().right > limit + 0.5 && el.offsetParent !== null)
      .filter((el) => !el.closest('.table-wrap, .phone-screen'))
      .slice(0, 8)
      .map((el) => el.tagName.toLowerCase() + '.' + [...el.classList].join('.') + ' ' + Math.round(el.getBoundingClientRect().right));
  })()`);
}

const focusedLabel = (page: Page) =>
  page.evaluate<string | null>("document.activeElement && document.activeElement.getAttribute('aria-label')");
type Styled = { getComputedStyle(element: unknown): { backgroundColor: string } };
const backgroundOf = (locator: Locator) =>
  locator.evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).backgroundColor);

const shots = process.env.BIO_SHOTS;
async function shoot(page: Page, name: string): Promise<void> {
  if (!shots) return;
  await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  // Tall pages also in viewport-sized slices, easier to look at.
  const { width, height } = await page.evaluate<{ width: number; height: number }>(
    '({ width: document.documentElement.clientWidth, height: document.documentElement.scrollHeight })',
  );
  const slice = width < 600 ? 1000 : 1400;
  for (let y = 0, i = 1; y < height; y += slice, i++) {
    const clip = { x: 0, y, width, height: Math.min(slice, height - y) };
    await page.screenshot({ path: `${shots}/${name}-${i}.png`, fullPage: true, clip });
  }
}

type Dashboard = ReturnType<typeof useDashboard>;

/** A fresh browser context (at `width` px) logged in as a new user on `tier`. */
async function signedIn(on: Dashboard, tier: Parameters<DashboardServer['user']>[0], width?: number) {
  const who = await on.server.user(tier);
  const opened = await openPage(on.browser, width);
  await logIn(opened.page, on.server.url, who);
  return opened;
}

let counter = 0;
const uniqueHandle = (stem: string) => `${stem}_${Date.now().toString(36)}${counter++}`;

describe.skipIf(browserSkipReason !== null)('dashboard: bio page editor and media kit in Chromium', () => {
  const dash = useDashboard();

  it('claims a handle, builds and reorders blocks by drag and keyboard, publishes, and /@handle shows them in order', async () => {
    const { page, errors, context } = await signedIn(dash, 'hero');
    const video = await createLink(page, 'https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    const song = await createLink(page, 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC');

    await page.goto(`${dash.server.url}/#/bio`);
    await page.getByRole('heading', { name: 'Claim your handle' }).waitFor();
    await shoot(page, 'bio-claim-1280');

    // The server's invalid_handle lands at the handle field.
    await page.getByRole('textbox', { name: 'Handle' }).fill('a!');
    await page.getByRole('button', { name: 'Claim handle' }).click();
    await expect.poll(() => page.locator('.field-invalid .field-error').textContent()).toContain('3 to 30');

    const handle = uniqueHandle('ada');
    await page.getByRole('textbox', { name: 'Handle' }).fill(handle);
    await page.getByLabel('Display name').fill('Ada Films');
    await page.getByRole('button', { name: 'Claim handle' }).click();
    await page.getByRole('heading', { name: /Draft/ }).waitFor();
    const address = `${dash.server.url.replace('http://', '')}/@${handle}`;
    await expect.poll(() => page.locator('.publish-url .mono').textContent()).toBe(address);

    // A header and two link blocks; each new link block starts on a link not used yet.
    await page.getByRole('button', { name: 'Header', exact: true }).click();
    await page.locator('li.blk').nth(0).getByLabel('Header text').fill('Fresh drops');
    await page.getByRole('button', { name: 'Link', exact: true }).click();
    const first = page.locator('li.blk').nth(1);
    const firstDefault = await first.getByLabel('Link', { exact: true }).inputValue();
    expect([video.id, song.id]).toContain(firstDefault);
    await first.getByLabel('Link', { exact: true }).selectOption(video.id);
    await first.getByLabel('Label').fill('Watch the video');
    await first.getByLabel('Note (optional)').fill('Opens in YouTube');
    await page.getByRole('button', { name: 'Link', exact: true }).click();
    const second = page.locator('li.blk').nth(2);
    await expect.poll(() => second.getByLabel('Link', { exact: true }).inputValue()).toBe(song.id);
    await second.getByLabel('Link', { exact: true }).selectOption(song.id);
    await second.getByLabel('Label').fill('Listen on Spotify');
    expect(await editorOrder(page)).toEqual(['Fresh drops', 'Watch the video', 'Listen on Spotify']);

    // Drag the Spotify block by its grip onto the header: it takes the first place.
    await page
      .locator('li.blk', { hasText: 'Listen on Spotify' })
      .getByTestId('drag-handle')
      .dragTo(page.locator('li.blk').nth(0));
    expect(await editorOrder(page)).toEqual(['Listen on Spotify', 'Fresh drops', 'Watch the video']);
    // The preview follows the unsaved order.
    await expect
      .poll(() => page.locator('.pv-l').allTextContents())
      .toEqual(['Listen on Spotify', 'Watch the videoOpens in YouTube']);

    // And by keyboard: the header goes back to the top; focus stays on a move button of that block.
    await page.getByRole('button', { name: 'Move Fresh drops up' }).click();
    expect(await editorOrder(page)).toEqual(['Fresh drops', 'Listen on Spotify', 'Watch the video']);
    await expect.poll(() => focusedLabel(page)).toBe('Move Fresh drops down');
    await expect
      .poll(() => page.getByRole('button', { name: 'Move Fresh drops up' }).isDisabled())
      .toBe(true);

    // A block added by mistake goes again; the keyboard lands on the block before it.
    await page.getByRole('button', { name: 'Text', exact: true }).click();
    await page.locator('li.blk').nth(3).getByRole('textbox', { name: 'Text' }).fill('oops');
    await page.getByRole('button', { name: 'Delete oops' }).click();
    expect(await editorOrder(page)).toEqual(['Fresh drops', 'Listen on Spotify', 'Watch the video']);
    await expect.poll(() => focusedLabel(page)).toBe('Edit Watch the video');

    // An empty label is refused by the server (invalid_blocks) and shown at that block's field.
    await page.locator('li.blk').nth(2).getByLabel('Label').fill('');
    await page.getByRole('button', { name: 'Save blocks' }).click();
    await page.getByText('Some blocks need a fix before they can be saved').waitFor();
    await expect
      .poll(() =>
        page
          .locator('li.blk')
          .nth(2)
          .locator('.field-invalid')
          .getByText(/at least|>=1|too small/i)
          .count(),
      )
      .toBe(1);
    expect((await apiCall<{ page: { blocks: unknown[] } }>(page, 'GET', '/bio')).page.blocks).toEqual([]);
    await page.locator('li.blk').nth(2).getByLabel('Label').fill('Watch the video');
    await page.getByRole('button', { name: 'Save blocks' }).click();
    await page.getByText('Blocks saved.').waitFor();
    await shoot(page, 'bio-editor-1280');

    // The public page 404s while a draft, then shows the blocks in the saved order once published.
    expect((await fetch(`${dash.server.url}/@${handle}`)).status).toBe(404);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByRole('button', { name: 'Unpublish' }).waitFor();
    await page.getByRole('heading', { name: /Published/ }).waitFor();
    const live = page.getByRole('link', { name: 'View live page' });
    await expect.poll(() => live.getAttribute('href')).toBe(`/@${handle}`);
    await expect.poll(() => live.getAttribute('target')).toBe('_blank');

    const visitor = await context.newPage();
    const response = await visitor.goto(`${dash.server.url}/@${handle}`);
    expect(response?.status()).toBe(200);
    await expect.poll(() => visitor.locator('h1').textContent()).toBe('Ada Films');
    const blocks = await visitor.locator('.bl > *').evaluateAll((nodes) =>
      nodes.map((n) => ({
        tag: n.tagName,
        text: n.childNodes[0]?.textContent,
        href: n.getAttribute('href'),
      })),
    );
    expect(blocks).toEqual([
      { tag: 'H2', text: 'Fresh drops', href: null },
      { tag: 'A', text: 'Listen on Spotify', href: song.shortUrl },
      { tag: 'A', text: 'Watch the video', href: video.shortUrl },
    ]);
    await visitor.close();

    await page.getByRole('button', { name: 'Unpublish' }).click();
    await page.getByRole('button', { name: 'Publish', exact: true }).waitFor();
    expect((await fetch(`${dash.server.url}/@${handle}`)).status).toBe(404);
    expect((await fetch(`${dash.server.url}/api/public/bio/${handle}`)).status).toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('a hero changes the accent colour: the preview follows before saving, and the public page after', async () => {
    const { page, errors, context } = await signedIn(dash, 'hero');
    const handle = uniqueHandle('theme');
    await putBio(page, { handle, title: 'Theme Test', published: true });
    await page.goto(`${dash.server.url}/#/bio`);
    const avatar = page.locator('.bio-preview-col .pv-ini');
    await expect.poll(() => backgroundOf(avatar)).toBe('rgb(91, 75, 255)');

    await page.getByLabel('Accent', { exact: true }).fill('#ff0066');
    await expect.poll(() => backgroundOf(avatar)).toBe('rgb(255, 0, 102)');
    // The native picker mirrors the text field.
    await expect.poll(() => page.getByLabel('Accent colour picker').inputValue()).toBe('#ff0066');
    await page.getByLabel('Background', { exact: true }).fill('not a colour');
    await page.getByText('Use a colour such as').waitFor();
    await page.getByLabel('Background', { exact: true }).fill('#101820');
    const screen = page.locator('.bio-preview-col .phone-screen');
    await expect.poll(() => backgroundOf(screen)).toBe('rgb(16, 24, 32)');

    await page.getByRole('button', { name: 'Save theme' }).click();
    await page.getByText('Theme saved.').waitFor();
    const html = await (await fetch(`${dash.server.url}/@${handle}`)).text();
    expect(html).toContain('--ac:#ff0066');
    expect(html).toContain('--bg:#101820');

    // A preset fills all three colours at once.
    await page.getByRole('button', { name: 'Midnight' }).click();
    await expect
      .poll(() => page.getByRole('button', { name: 'Midnight' }).getAttribute('aria-pressed'))
      .toBe('true');
    await expect.poll(() => backgroundOf(screen)).toBe('rgb(15, 14, 23)');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a sidekick gets handle_taken at the field and sees upgrade notices for the theme and the media kit', async () => {
    const taken = uniqueHandle('taken');
    {
      const { page, context } = await signedIn(dash, 'hero');
      await putBio(page, { handle: taken });
      await context.close();
    }
    const { page, errors, context } = await signedIn(dash, 'sidekick');
    await page.goto(`${dash.server.url}/#/media-kit`);
    await page.getByRole('heading', { name: 'Create your bio page first' }).waitFor();
    await expect
      .poll(() => page.getByRole('link', { name: 'Set up your bio page' }).getAttribute('href'))
      .toBe('#/bio');

    await page.goto(`${dash.server.url}/#/bio`);
    await page.getByRole('textbox', { name: 'Handle' }).fill(taken.toUpperCase());
    await page.getByRole('button', { name: 'Claim handle' }).click();
    const takenMessage = 'That handle is already taken. Try another one.';
    await expect.poll(() => page.locator('.field-invalid .field-error').textContent()).toBe(takenMessage);
    await page.getByRole('textbox', { name: 'Handle' }).fill(uniqueHandle('side'));
    await page.getByRole('button', { name: 'Claim handle' }).click();
    await page.getByRole('heading', { name: /Draft/ }).waitFor();

    const themeNotice = page.locator('.upgrade[data-feature="bioCustomTheme"]');
    await expect
      .poll(() => themeNotice.textContent())
      .toContain('Custom bio theme is part of Hero and Legend');
    await expect.poll(() => page.getByLabel('Accent', { exact: true }).count()).toBe(0);
    // Per-block stats need full analytics: said once, quietly.
    await page.getByText('Clicks and app-open rates per block come with Hero').waitFor();
    await shoot(page, 'bio-sidekick-1280');

    await page.goto(`${dash.server.url}/#/media-kit`);
    const kitNotice = page.locator('.upgrade[data-feature="mediaKit"]');
    await expect.poll(() => kitNotice.textContent()).toContain('Media kit is part of Hero and Legend');
    expect(await page.getByRole('switch', { name: 'Publish the media kit' }).isDisabled()).toBe(true);
    await expect.poll(() => page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    // The read-only preview of the public payload: nothing switched on, so nothing to show (no zeros).
    await page.getByTestId('kit-preview').getByText('Nothing to show yet').waitFor();
    await expect.poll(() => page.getByTestId('kit-preview').locator('.pv-tile').count()).toBe(0);
    await shoot(page, 'kit-sidekick-1280');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a hero publishes the media kit: the public payload answers 200, and 404 before and after clearing', async () => {
    const { page, errors, context } = await signedIn(dash, 'hero');
    const handle = uniqueHandle('kit');
    await putBio(page, { handle, title: 'Kit Test', published: true });
    const publicKit = `${dash.server.url}/api/public/media-kit/${handle}`;

    await page.goto(`${dash.server.url}/#/media-kit`);
    await page.getByRole('heading', { name: 'Media kit', level: 1 }).waitFor();
    await shoot(page, 'kit-1280');
    expect((await fetch(publicKit)).status).toBe(404);
    await page.getByRole('switch', { name: 'Publish the media kit' }).check();
    await page.getByRole('switch', { name: 'Total clicks' }).check();
    await page.getByRole('switch', { name: 'App-open rate' }).check();
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved. Your media kit is public.').waitFor();

    const answer = await fetch(publicKit);
    expect(answer.status).toBe(200);
    const kit = (await answer.json()) as Record<string, unknown>;
    expect(kit.handle).toBe(handle);
    expect(kit).not.toHaveProperty('published');
    // Saved settings survive a reload; the public page link appears.
    await page.reload();
    await expect.poll(() => page.getByRole('switch', { name: 'Total clicks' }).isChecked()).toBe(true);
    await expect.poll(() => page.getByRole('switch', { name: 'Platforms' }).isChecked()).toBe(false);
    await expect
      .poll(() => page.getByRole('link', { name: 'View public kit' }).getAttribute('href'))
      .toBe(`/@${handle}/media-kit`);
    // No taps yet: the preview says so instead of showing zeros, and the card (409 no_data) is hidden.
    await page.getByTestId('kit-preview').getByText('Nothing to show yet').waitFor();
    await page.getByText('The share card appears once taps have been measured.').waitFor();
    await expect.poll(() => page.locator('.kit-card-img').count()).toBe(0);

    await page.getByRole('button', { name: 'Clear kit' }).click();
    await page
      .getByRole('dialog', { name: 'Clear the media kit?' })
      .getByRole('button', { name: 'Clear media kit' })
      .click();
    await page.getByText('Media kit cleared.').waitFor();
    expect((await fetch(publicKit)).status).toBe(404);
    await expect
      .poll(() => page.getByRole('switch', { name: 'Publish the media kit' }).isChecked())
      .toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('deleting the page asks first, says the links keep redirecting, and frees the handle', async () => {
    const { page, errors, context } = await signedIn(dash, 'hero');
    const link = await createLink(page, 'https://www.youtube.com/watch?v=keepme');
    const handle = uniqueHandle('gone');
    await putBio(page, { handle, published: true });
    await apiCall(page, 'PUT', '/bio/blocks', [{ t: 'link', id: 'b1', linkId: link.id, label: 'Keep me' }]);
    await page.goto(`${dash.server.url}/#/bio`);
    await page.getByText('Keep me').first().waitFor();
    await page.getByRole('button', { name: 'Delete page' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your bio page?' });
    await expect.poll(() => dialog.textContent()).toContain('keeps redirecting');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect((await fetch(`${dash.server.url}/@${handle}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Delete page' }).click();
    await dialog.getByRole('button', { name: 'Delete bio page' }).click();
    await page.getByRole('heading', { name: 'Claim your handle' }).waitFor();
    expect((await fetch(`${dash.server.url}/@${handle}`)).status).toBe(404);
    const redirect = await fetch(link.shortUrl, { redirect: 'manual', headers: { 'user-agent': 'curl/8' } });
    expect(redirect.status).not.toBe(404);
    expect(errors).toEqual([]);
    await context.close();
  });

  describe('a server with features switched off', () => {
    const off = useDashboard({ FLAGS_OFF: 'linkInBio,mediaKit' });

    it('with the bio and media-kit flags off, both pages say so instead of offering a form', async () => {
      const { page, context } = await signedIn(off, 'hero');
      await page.goto(`${off.server.url}/#/bio`);
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('switched off');
      await expect.poll(() => page.getByRole('button', { name: 'Claim handle' }).count()).toBe(0);
      await page.goto(`${off.server.url}/#/media-kit`);
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('switched off');
      await context.close();
    });
  });

  it('fits a 375 px phone: no horizontal scroll on the editor or the media kit', async () => {
    const { page, errors, context } = await signedIn(dash, 'hero', 375);
    const link = await createLink(page, 'https://open.spotify.com/track/4uLU6hMCjMI75M1A2tKUQC');
    const longLabel = 'A long label for a link block to see it wrap';
    await page.goto(`${dash.server.url}/#/bio`);
    await page.getByRole('heading', { name: 'Claim your handle' }).waitFor();
    await shoot(page, 'bio-claim-375');
    await putBio(page, {
      handle: uniqueHandle('a_rather_long_handle'),
      title: 'Someone With A Long Display Name',
      bio: 'Filmmaker and coffee nerd.\nNew videos every Friday.',
    });
    await apiCall(page, 'PUT', '/bio/blocks', [
      { t: 'header', id: 'h', text: 'Latest' },
      { t: 'link', id: 'l', linkId: link.id, label: longLabel, note: 'A note' },
      { t: 'text', id: 't', text: 'Thanks for stopping by!' },
      { t: 'social', id: 's', items: ['spotify', 'apple_music'].map((key) => ({ key, linkId: link.id })) },
    ]);
    await page.reload();
    await page.getByRole('heading', { name: /Draft/ }).waitFor();
    await page.getByRole('button', { name: `Edit ${longLabel}` }).click();
    await page.getByRole('button', { name: 'Edit Social icons' }).click();
    await shoot(page, 'bio-editor-375');
    expect(await overflowing(page)).toEqual([]);
    await page.goto(`${dash.server.url}/#/media-kit`);
    await page.getByRole('switch', { name: 'Publish the media kit' }).waitFor();
    await shoot(page, 'kit-375');
    expect(await overflowing(page)).toEqual([]);
    expect(await fitsWidth(page)).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });
});
