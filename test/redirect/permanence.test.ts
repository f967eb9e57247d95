import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/** The first invariant: no code path stops a published link from redirecting. */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`permanence on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => h?.close());

    const visit = (slug: string) => h.visit(slug);

    it('archived, read-only (after a downgrade) and foldered-then-unfoldered links all keep redirecting', async () => {
      const { apiKey, orgId } = await h.org('legend');
      const folder = (
        await h.v1(apiKey, { method: 'POST', url: '/v1/folders', payload: { name: 'F' } })
      ).json();
      const pixel = (
        await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/pixels',
          payload: { type: 'gtm', pixelId: 'GTM-PERM1', name: 'P' },
        })
      ).json();
      const links = [];
      for (let i = 0; i < 30; i++) {
        const payload = {
          url: `https://example.com/p${i}`,
          ...(i === 0 ? { folderId: folder.id, pixelIds: [pixel.id] } : {}),
        };
        links.push((await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload })).json());
      }
      await h.v1(apiKey, { method: 'POST', url: `/v1/links/${links[1].id}/archive` });
      await h.v1(apiKey, { method: 'DELETE', url: `/v1/folders/${folder.id}` });
      await h.v1(apiKey, { method: 'DELETE', url: `/v1/pixels/${pixel.id}` });
      const { readOnlyLinks } = await h.accounts.setTier(orgId, 'sidekick');
      expect(readOnlyLinks).toBe(4);
      for (const [i, link] of links.entries()) {
        const response = await visit(link.slug);
        expect(response.statusCode, link.slug).toBe(302);
        expect(response.headers.location).toBe(`https://example.com/p${i}`);
      }
    });
  });
}
