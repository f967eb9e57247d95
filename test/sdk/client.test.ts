import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Linkhop, LinkhopError } from '../../packages/sdk/src/index.js';
import { type SdkServer, startSdkServer } from './setup.js';

let server: SdkServer;
let linkhop: Linkhop;
let orgId: string;

beforeAll(async () => {
  server = await startSdkServer();
  const org = server.org('Maya Makes');
  orgId = org.orgId;
  linkhop = server.client(org.apiKey);
});
afterAll(() => server.serve.stop());

const YOUTUBE = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

async function caught(promise: Promise<unknown>): Promise<LinkhopError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LinkhopError);
  return error as LinkhopError;
}

describe('@linkhop/sdk against linkhop serve', () => {
  it('me() names the organization the key belongs to', async () => {
    expect(await linkhop.me()).toMatchObject({ orgId, tier: 'legend' });
  });

  it('creates, reads, updates and archives a link; an archived link still redirects', async () => {
    const link = await linkhop.links.create({ url: YOUTUBE, slug: 'sdk-yt', tags: ['launch'] });
    expect(link).toMatchObject({ slug: 'sdk-yt', destination: YOUTUBE, platformKey: 'youtube' });
    expect((await linkhop.links.get(link.id)).id).toBe(link.id);
    const updated = await linkhop.links.update(link.id, { tags: ['launch', 'sdk'] });
    expect(updated.tags).toEqual(['launch', 'sdk']);
    await linkhop.links.archive(link.id);
    const visit = await fetch(`${server.serve.url}/sdk-yt`, { redirect: 'manual' });
    expect(visit.status).toBe(302);
    expect(visit.headers.get('location')).toBe(YOUTUBE);
  });

  it('links.list walks every page in order, and stops after the short one', async () => {
    const client = server.client(server.org().apiKey);
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await client.links.create({ url: `https://example.com/page-${i}` }));
    const pages = [];
    for await (const page of client.links.list({ pageSize: 2 })) pages.push(page.map((link) => link.id));
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    // Newest first, none twice.
    expect(pages.flat()).toEqual(made.map((link) => link.id).reverse());
    expect((await client.links.list({ pageSize: 3, q: 'page-4' }).all()).map((link) => link.id)).toEqual([
      made[4]?.id,
    ]);
  });

  it('bulkCreate answers a Link or an error body per item, in order', async () => {
    const results = await linkhop.links.bulkCreate([
      { url: 'https://example.com/a', slug: 'bulk-a' },
      { url: 'nope' },
    ]);
    expect(results[0]).toMatchObject({ slug: 'bulk-a' });
    expect(results[1]).toMatchObject({ error: 'invalid_body' });
  });

  it('a refused call throws LinkhopError with the spec body: status, error, message and Zod issues', async () => {
    const invalid = await caught(linkhop.links.create({ url: 'not a url' }));
    expect(invalid.status).toBe(400);
    expect(invalid.error).toBe('invalid_body');
    expect(invalid.message).toMatch(/url/);
    expect(invalid.issues?.length).toBeGreaterThan(0);
    await linkhop.links.create({ url: YOUTUBE, slug: 'taken' });
    const taken = await caught(linkhop.links.create({ url: YOUTUBE, slug: 'taken' }));
    expect([taken.status, taken.error]).toEqual([409, 'slug_taken']);
    const missing = await caught(linkhop.links.get('00000000-0000-4000-8000-000000000000'));
    expect([missing.status, missing.error]).toEqual([404, 'not_found']);
  });

  it('a wrong key is a 401 LinkhopError, not a crash', async () => {
    const error = await caught(server.client('svc_not-a-real-key').me());
    expect([error.status, error.error]).toEqual([401, 'unauthorized']);
  });

  it('draws QR codes as SVG text or PNG bytes', async () => {
    const link = await linkhop.links.create({ url: YOUTUBE });
    expect(await linkhop.links.qr(link.id)).toMatch(/<svg[\s>]/);
    const png = new Uint8Array(await linkhop.links.qr(link.id, { format: 'png', size: 128 }));
    expect([...png.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });

  it("reads a link's destination health, and runs an A/B test to its end", async () => {
    const link = await linkhop.links.create({
      url: YOUTUBE,
      ab: [
        { u: 'https://example.com/a', w: 1 },
        { u: 'https://example.com/b', w: 1 },
      ],
    });
    expect(await linkhop.links.health(link.id)).toEqual({
      state: 'unknown',
      checkedAt: null,
      since: null,
      lastStatus: null,
      checks: [],
    });
    const test = await linkhop.links.abTest(link.id);
    expect(test.status).toBe('running');
    expect(test.variants.map((variant) => variant.url)).toEqual([
      'https://example.com/a',
      'https://example.com/b',
    ]);
    const promoted = await linkhop.links.promoteVariant(link.id, 1);
    expect(promoted.link.destination).toBe('https://example.com/b');
    expect((await linkhop.links.abTest(link.id, promoted.test.testId ?? undefined)).status).toBe('concluded');
  });

  it('folders, pixels and domains: create, list, delete', async () => {
    const folder = await linkhop.folders.create({ name: 'Campaigns' });
    const inFolder = await linkhop.links.create({ url: YOUTUBE, folderId: folder.id });
    expect((await linkhop.links.list({ folderId: folder.id }).all()).map((link) => link.id)).toEqual([
      inFolder.id,
    ]);
    expect((await linkhop.folders.list()).map((f) => f.name)).toContain('Campaigns');
    await linkhop.folders.delete(folder.id);
    expect(await linkhop.folders.list()).toEqual([]);

    const pixel = await linkhop.pixels.create({ type: 'meta', pixelId: '123456789012345', name: 'Meta' });
    expect((await linkhop.pixels.list()).map((p) => p.id)).toEqual([pixel.id]);
    await linkhop.pixels.delete(pixel.id);

    const domain = await linkhop.domains.create({ hostname: 'go.maya.example' });
    expect(JSON.stringify(domain)).toContain('linkhop-verify=');
    const unverified = await caught(linkhop.domains.verify(domain.id));
    expect(unverified.error).toBe('domain_unverified');
    await linkhop.domains.delete(domain.id);
    expect(await linkhop.domains.list()).toEqual([]);
  });

  it('analytics and audience answer for an organization with no traffic yet', async () => {
    const client = server.client(server.org().apiKey);
    const analytics = await client.analytics.get({ days: 7 });
    expect(analytics).toHaveProperty('configured');
    const link = await client.links.create({ url: YOUTUBE });
    expect(await client.analytics.clicks(link.id).all()).toEqual([]);
    expect(await client.audience.list().all()).toEqual([]);
    expect((await client.audience.export()).split(/\r?\n/)[0]).toBe(
      'email,source_slug,country,consent_text,captured_at',
    );
  });
});
