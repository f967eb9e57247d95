import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/** Archived links (issue #20): listed with ?archived=true, restored with /unarchive, always redirecting. */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`archived links on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind);
    });
    afterAll(async () => h?.close());

    async function setup(tier: 'sidekick' | 'legend' = 'legend') {
      const { apiKey, orgId } = await h.org(tier);
      const create = async (url: string) =>
        (await h.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url } })).json() as {
          id: string;
          slug: string;
        };
      const ids = (query: string, path = '/v1/links') =>
        h
          .v1(apiKey, { method: 'GET', url: `${path}?${query}` })
          .then((r) => r.json().links.map((l: { id: string }) => l.id));
      return { apiKey, orgId, create, ids };
    }

    it('GET /v1/links?archived=true lists the archived links, newest first, and only those', async () => {
      const { apiKey, create, ids } = await setup();
      const a = await create('https://example.com/a');
      const b = await create('https://example.com/b');
      const c = await create('https://example.com/c');
      for (const link of [a, c]) await h.v1(apiKey, { method: 'POST', url: `/v1/links/${link.id}/archive` });
      expect(await ids('archived=true')).toEqual([c.id, a.id]);
      expect(await ids('archived=false')).toEqual([b.id]);
      expect(await ids('')).toEqual([b.id]);
      // Filters combine with it.
      expect(await ids('archived=true&q=example.com/a')).toEqual([a.id]);
      const shown = (await h.v1(apiKey, { method: 'GET', url: `/v1/links/${a.id}` })).json();
      expect(shown.archived).toBe(true);
    });

    it('POST /v1/links/{id}/unarchive restores a link to the live list; it kept redirecting all along', async () => {
      const { apiKey, create, ids } = await setup();
      const link = await create('https://example.com/back');
      await h.v1(apiKey, { method: 'POST', url: `/v1/links/${link.id}/archive` });
      const visit = await h.app.inject({
        method: 'GET',
        url: `/${link.slug}`,
        headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
      });
      expect(visit.headers.location).toBe('https://example.com/back');
      const restored = await h.v1(apiKey, { method: 'POST', url: `/v1/links/${link.id}/unarchive` });
      expect(restored.statusCode).toBe(200);
      expect(restored.json()).toMatchObject({ id: link.id, archived: false });
      expect(await ids('')).toEqual([link.id]);
      expect(await ids('archived=true')).toEqual([]);
      // Unarchiving a live link changes nothing.
      expect((await h.v1(apiKey, { method: 'POST', url: `/v1/links/${link.id}/unarchive` })).statusCode).toBe(
        200,
      );
    });

    it('unarchive is refused with link_cap_reached when the plan is full, and 404 for another organization', async () => {
      // Sidekick (dashboard only) keeps 25 live links.
      const { cookie } = await h.session({ email: `cap-${Date.now()}@example.com`, orgName: 'Cap' });
      const headers = { cookie, origin: 'https://lnk.example' };
      const create = async (n: number) =>
        (
          await h.app.inject({
            method: 'POST',
            url: '/api/links',
            headers,
            payload: { url: `https://example.com/${n}` },
          })
        ).json().id as string;
      const first = await create(0);
      await h.app.inject({ method: 'POST', url: `/api/links/${first}/archive`, headers });
      for (let i = 1; i <= 25; i++) await create(i);
      const refused = await h.app.inject({ method: 'POST', url: `/api/links/${first}/unarchive`, headers });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('link_cap_reached');
      const other = await setup();
      const foreign = await h.v1(other.apiKey, { method: 'POST', url: `/v1/links/${first}/unarchive` });
      expect(foreign.statusCode).toBe(404);
    });

    it('the dashboard has the same routes under /api', async () => {
      const { cookie } = await h.session({ email: `arch-${Date.now()}@example.com`, orgName: 'Arch' });
      const headers = { cookie, origin: 'https://lnk.example' };
      const created = await h.app.inject({
        method: 'POST',
        url: '/api/links',
        headers,
        payload: { url: 'https://example.com/dash' },
      });
      const id = created.json().id;
      await h.app.inject({ method: 'POST', url: `/api/links/${id}/archive`, headers });
      const listed = await h.app.inject({ method: 'GET', url: '/api/links?archived=true', headers });
      expect(listed.json().links.map((l: { id: string }) => l.id)).toEqual([id]);
      const back = await h.app.inject({ method: 'POST', url: `/api/links/${id}/unarchive`, headers });
      expect(back.statusCode).toBe(200);
    });
  });
}
