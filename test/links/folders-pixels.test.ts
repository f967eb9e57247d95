import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`/v1 folders and pixels on ${kind.name}`, () => {
    let h: HostedHarness;
    let key: string;
    let other: string;
    beforeAll(async () => {
      h = await startHosted(kind);
      key = (await h.org('legend')).apiKey;
      other = (await h.org('legend')).apiKey;
    });
    afterAll(async () => h?.close());

    const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, apiKey = key) =>
      h.v1(apiKey, { method, url, ...(payload ? { payload } : {}) });

    it('folders: create, list with linkCount, rename, delete keeps the links with folderId null', async () => {
      const created = await call('POST', '/v1/folders', { name: '  Launch  ' });
      expect(created.statusCode).toBe(201);
      const folder = created.json();
      expect(folder).toEqual({
        id: expect.any(String),
        name: 'Launch',
        linkCount: 0,
        createdAt: expect.any(String),
      });
      const link = (
        await call('POST', '/v1/links', { url: 'https://example.com/f', folderId: folder.id })
      ).json();
      expect(link.folderId).toBe(folder.id);
      await call('POST', '/v1/links', { url: 'https://example.com/g', folderId: folder.id });
      const listed = (await call('GET', '/v1/folders')).json();
      expect(listed.folders).toEqual([{ ...folder, linkCount: 2 }]);
      const renamed = await call('PATCH', `/v1/folders/${folder.id}`, { name: 'Renamed' });
      expect(renamed.json()).toEqual({ id: folder.id, name: 'Renamed', createdAt: folder.createdAt });
      expect((await call('DELETE', `/v1/folders/${folder.id}`)).json()).toEqual({ deleted: true });
      expect((await call('GET', `/v1/links/${link.id}`)).json().folderId).toBeNull();
      expect((await call('GET', '/v1/folders')).json().folders).toEqual([]);
      const visit = await h.app.inject({
        method: 'GET',
        url: `/${link.slug}`,
        headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
      });
      expect(visit.statusCode).toBe(302);
    });

    it('folders: empty names are 400; another organization gets 404', async () => {
      expect((await call('POST', '/v1/folders', { name: '   ' })).statusCode).toBe(400);
      const folder = (await call('POST', '/v1/folders', { name: 'Mine' })).json();
      expect((await call('PATCH', `/v1/folders/${folder.id}`, { name: 'x' }, other)).statusCode).toBe(404);
      expect((await call('DELETE', `/v1/folders/${folder.id}`, undefined, other)).statusCode).toBe(404);
      expect(
        (await call('POST', '/v1/links', { url: 'https://example.com', folderId: folder.id }, other))
          .statusCode,
      ).toBe(400);
    });

    it.each([
      ['meta', '123456789012345', true],
      ['meta', '1234567890123456', true],
      ['meta', '12345678901234', false],
      ['meta', '12345678901234567', false],
      ['meta', 'ABCDEFGHIJKLMNO', false],
      ['tiktok', 'C4ABCDEFGHIJKLMNOPQR', true],
      ['tiktok', 'c4abcdefghijklmnopqr', false],
      ['tiktok', 'C4ABCDEFGHIJKLMNOPQ', false],
      ['gtm', 'GTM-ABC1', true],
      ['gtm', 'GTM-ABCDEFGH12', true],
      ['gtm', 'GTM-ABC', false],
      ['gtm', 'GTM-ABCDEFGH123', false],
      ['gtm', 'gtm-ABC1', false],
    ])('pixel %s id %s valid: %s', async (type, pixelId, valid) => {
      const response = await call('POST', '/v1/pixels', { type, pixelId, name: 'P' });
      expect(response.statusCode).toBe(valid ? 201 : 400);
      if (!valid) expect(response.json().issues[0].path).toEqual(['pixelId']);
    });

    it('pixels: assigned to links, listed, and a delete removes them from every link', async () => {
      const pixel = (
        await call('POST', '/v1/pixels', { type: 'gtm', pixelId: 'GTM-XYZ9', name: 'Tags' })
      ).json();
      expect(pixel).toEqual({
        id: expect.any(String),
        type: 'gtm',
        pixelId: 'GTM-XYZ9',
        name: 'Tags',
        createdAt: expect.any(String),
      });
      const link = (
        await call('POST', '/v1/links', { url: 'https://example.com/p', pixelIds: [pixel.id] })
      ).json();
      expect(link.pixelIds).toEqual([pixel.id]);
      expect((await call('GET', '/v1/pixels')).json().pixels.map((p: { id: string }) => p.id)).toContain(
        pixel.id,
      );
      expect((await call('DELETE', `/v1/pixels/${pixel.id}`, undefined, other)).statusCode).toBe(404);
      expect((await call('DELETE', `/v1/pixels/${pixel.id}`)).json()).toEqual({ deleted: true });
      expect((await call('GET', `/v1/links/${link.id}`)).json().pixelIds).toEqual([]);
      const visit = await h.app.inject({
        method: 'GET',
        url: `/${link.slug}`,
        headers: { host: 'lnk.example', 'user-agent': UA.desktopChrome },
      });
      expect(visit.statusCode).toBe(302);
    });
  });
}
