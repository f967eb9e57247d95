import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tier } from '../../src/tenancy/plans.js';
import { FakeBitly } from '../fakes/bitly-server.js';
import { FakeDub } from '../fakes/dub-server.js';
import { FakeKutt } from '../fakes/kutt-server.js';
import { FakeShlink } from '../fakes/shlink-server.js';
import { FakeYourls } from '../fakes/yourls-server.js';
import { addVerifiedDomain } from '../helpers/domains.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/**
 * Imports through the hosted app, as a user runs them: POST /v1/imports answers 202 at once, the
 * worker (off the request path) pages the fake service, and GET /v1/imports/{id} reports the outcome.
 * Every link is checked through the links API: slug, hostname, tags, title, creation date.
 */

interface ImportBody {
  id: string;
  source: string;
  status: string;
  total: number;
  imported: number;
  skipped: number;
  failed: number;
  errors: { item: string; reason: string }[];
  errorCount: number;
}

/** Reads the import until the worker ends it (no time is asserted: the test's timeout bounds the wait). */
async function untilEnded(read: () => Promise<ImportBody>): Promise<ImportBody> {
  for (;;) {
    const body = await read();
    expect(['queued', 'running', 'done', 'failed'], JSON.stringify(body)).toContain(body.status);
    if (body.status === 'done' || body.status === 'failed') return body;
    // Not faster: GET counts against the /v1 rate limit (120 a minute per key).
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`imports on ${kind.name}`, () => {
    let h: HostedHarness;
    const shlink = new FakeShlink();
    const kutt = new FakeKutt();
    const bitly = new FakeBitly();
    const dub = new FakeDub();
    const yourls = new FakeYourls();
    const fakes = [shlink, kutt, bitly, dub, yourls];

    beforeAll(async () => {
      await Promise.all(fakes.map((fake) => fake.start()));
      h = await startHosted(kind, { IMPORT_ALLOW_PRIVATE_SOURCES: '1' });
    });
    afterAll(async () => {
      await h?.close();
      await Promise.all(fakes.map((fake) => fake.stop()));
    });

    const org = async (tier: Tier = 'legend') => h.org(tier);
    const start = async (apiKey: string, payload: object): Promise<string> => {
      const response = await h.v1(apiKey, { method: 'POST', url: '/v1/imports', payload });
      expect(response.statusCode, response.body).toBe(202);
      return (response.json() as { id: string }).id;
    };
    const finished = (apiKey: string, id: string) =>
      untilEnded(
        async () => (await h.v1(apiKey, { method: 'GET', url: `/v1/imports/${id}` })).json() as ImportBody,
      );
    const links = async (apiKey: string) =>
      (
        (await h.v1(apiKey, { method: 'GET', url: '/v1/links?limit=200' })).json() as {
          links: { id: string; slug: string; hostname: string | null; tags: string[]; createdAt: string }[];
        }
      ).links;

    it('a Shlink import keeps slugs, the verified hostname, tags, titles and creation dates, and redirects there', async () => {
      shlink.shortUrls = [];
      shlink.seed(120);
      const { apiKey, orgId } = await org();
      await addVerifiedDomain(h.testStore.store, orgId, 's.example.test');
      const id = await start(apiKey, { source: 'shlink', baseUrl: shlink.origin, apiKey: shlink.apiKey });
      const result = await finished(apiKey, id);
      expect(result).toMatchObject({ id, source: 'shlink', status: 'done', total: 120, imported: 120 });
      expect([result.skipped, result.failed, result.errors]).toEqual([0, 0, []]);

      const imported = await links(apiKey);
      expect(imported).toHaveLength(120);
      const third = imported.find((link) => link.slug === 'sh3');
      expect(third).toMatchObject({
        hostname: 's.example.test',
        tags: ['shlink', 'three'],
        createdAt: '2021-03-04T00:00:00.000Z',
      });
      const preview = await h.v1(apiKey, { method: 'GET', url: `/v1/links/${third?.id}/og` });
      expect(preview.json()).toMatchObject({ title: 'Shlink title 3', source: 'custom' });
      const visit = await h.app.inject({ method: 'GET', url: '/sh3', headers: { host: 's.example.test' } });
      expect(visit.statusCode).toBe(302);
      expect(visit.headers.location).toBe('https://example.com/shlink/3');
    });

    it('a re-run imports nothing twice: every item is skipped as already imported', async () => {
      shlink.shortUrls = [];
      shlink.seed(3);
      const { apiKey } = await org();
      const body = { source: 'shlink', baseUrl: shlink.origin, apiKey: shlink.apiKey };
      const first = await finished(apiKey, await start(apiKey, body));
      expect(first.imported).toBe(3);
      const again = await finished(apiKey, await start(apiKey, body));
      expect(again).toMatchObject({ status: 'done', total: 3, imported: 0, skipped: 3, failed: 0 });
      expect(again.errors[0]).toEqual({
        item: 's.example.test/sh1',
        reason: `already imported (import ${first.id})`,
      });
      expect(await links(apiKey)).toHaveLength(3);
    });

    it('a slug already taken is skipped with its reason; an unverified hostname lands on the default host with a note', async () => {
      kutt.links = [];
      kutt.seed(3);
      const { apiKey } = await org();
      const taken = await h.v1(apiKey, {
        method: 'POST',
        url: '/v1/links',
        payload: { url: 'https://example.com/mine', slug: 'ku2' },
      });
      expect(taken.statusCode).toBe(201);
      const result = await finished(
        apiKey,
        await start(apiKey, { source: 'kutt', baseUrl: kutt.origin, apiKey: kutt.apiKey }),
      );
      expect(result).toMatchObject({ status: 'done', total: 3, imported: 2, skipped: 1, failed: 0 });
      expect(result.errors).toContainEqual({
        item: 'k.example.test/ku2',
        reason: 'slug "ku2" is already taken',
      });
      expect(result.errors).toContainEqual({
        item: 'k.example.test/ku3',
        reason: `k.example.test is not a verified domain of this organization: imported on the default host (${BASE_URL})`,
      });
      const mine = await links(apiKey);
      expect(mine.find((link) => link.slug === 'ku3')?.hostname).toBeNull();
      expect(mine.filter((link) => link.slug === 'ku2')).toHaveLength(1);
    });

    it("Bitly, Dub and YOURLS imports run to the end; a refused token fails the import with Bitly's words", async () => {
      bitly.seed(7);
      dub.seed(4);
      yourls.seed(5);
      const { apiKey } = await org();
      const runs = [
        { source: 'bitly', token: bitly.token, groupGuid: 'Bg1', baseUrl: bitly.origin },
        { source: 'dub', apiKey: dub.apiKey, baseUrl: dub.origin },
        { source: 'yourls', baseUrl: yourls.origin, signature: yourls.signature },
      ];
      const results = [];
      for (const body of runs) results.push(await finished(apiKey, await start(apiKey, body)));
      expect(results.map((result) => [result.source, result.status, result.imported])).toEqual([
        ['bitly', 'done', 7],
        ['dub', 'done', 4],
        ['yourls', 'done', 5],
      ]);
      const failed = await finished(
        apiKey,
        await start(apiKey, { source: 'bitly', token: 'wrong', baseUrl: bitly.origin }),
      );
      expect(failed).toMatchObject({ status: 'failed', imported: 0 });
      expect(failed.errors).toEqual([
        {
          item: 'Bitly API',
          reason:
            'Bitly answered HTTP 403: FORBIDDEN: You are currently forbidden to access this resource. Check the API key or token.',
        },
      ]);
    });

    it("the dashboard twin imports a CSV; the plan's link cap skips the rest with its reason", async () => {
      const { cookie } = await h.session({ email: `cap-${kind.name}@example.com`, orgName: 'Capped' });
      const rows = Array.from({ length: 30 }, (_, i) => `https://example.com/csv/${i},"a|b",Row ${i}`);
      const csv = ['url,tags,title', ...rows].join('\n');
      const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
        h.app.inject({ method, url, headers: { cookie, origin: BASE_URL }, ...(payload ? { payload } : {}) });
      const created = await call('POST', '/api/imports', { source: 'csv', csv });
      expect(created.statusCode).toBe(202);
      const { id } = created.json() as { id: string };
      const result = await untilEnded(
        async () => (await call('GET', `/api/imports/${id}`)).json() as ImportBody,
      );
      expect(result).toMatchObject({ status: 'done', total: 30, imported: 25, skipped: 5, failed: 0 });
      expect(result.errors[0]?.item).toBe('row 27');
      expect(result.errors[0]?.reason).toMatch(/link cap/);
      const list = (await call('GET', '/api/imports')).json() as { imports: { id: string }[] };
      expect(list.imports.map((item) => item.id)).toEqual([id]);
    });

    it('bad bodies answer 400 with the spec’s error body; an unknown or foreign import is 404', async () => {
      const { apiKey } = await org();
      const post = (payload: object) => h.v1(apiKey, { method: 'POST', url: '/v1/imports', payload });
      const missing = await post({ source: 'shlink', baseUrl: shlink.origin });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ error: 'invalid_body' });
      expect((missing.json() as { issues: { path: string[] }[] }).issues[0]?.path).toEqual(['apiKey']);
      expect((await post({ source: 'ftp' })).statusCode).toBe(400);
      const headless = await post({ source: 'csv', csv: 'link,slug\nhttps://a.example,x' });
      expect(headless.statusCode).toBe(400);
      expect(headless.json()).toMatchObject({
        error: 'invalid_body',
        message: 'csv: The CSV needs a header row with a `url` column (and optionally slug, tags, title)',
      });
      const unknown = await h.v1(apiKey, {
        method: 'GET',
        url: '/v1/imports/00000000-0000-4000-8000-000000000000',
      });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toEqual({ error: 'not_found', message: 'No such import' });
      const other = await org();
      const theirs = await start(other.apiKey, { source: 'csv', csv: 'url\nhttps://a.example' });
      expect((await h.v1(apiKey, { method: 'GET', url: `/v1/imports/${theirs}` })).statusCode).toBe(404);
    });
    it('a CSV over 10,000 rows is 413 too_many_rows, before anything is stored: 3.2 million rows are refused at once', async () => {
      const { apiKey } = await org();
      const post = (csv: string) =>
        h.v1(apiKey, { method: 'POST', url: '/v1/imports', payload: { source: 'csv', csv } });
      const message =
        'The CSV has more than 10,000 rows; split it into files of at most 10,000 rows and import each';
      const over = await post(`url\n${'https://example.com/x\n'.repeat(10_001)}`);
      expect(over.statusCode).toBe(413);
      expect(over.json()).toEqual({ error: 'too_many_rows', message });
      // The probe's file: 9.6 MB of JSON, under both size limits; it took 2.4 GB and counting.
      const huge = await post(`url\n${'u\n'.repeat(3_200_000)}`);
      expect(huge.statusCode).toBe(413);
      expect(huge.json()).toEqual({ error: 'too_many_rows', message });
      const list = (await h.v1(apiKey, { method: 'GET', url: '/v1/imports' })).json() as {
        imports: unknown[];
      };
      expect(list.imports).toEqual([]);
    });

    it('an organization with 3 imports queued or running gets 429 too_many_imports for a 4th', async () => {
      const { apiKey } = await org();
      // Bitly asks for an hour's pause: each import is handed back until then, and stays running.
      bitly.throttleNext(3, '3600');
      const body = { source: 'bitly', token: bitly.token, groupGuid: 'Bg1', baseUrl: bitly.origin };
      const ids = [await start(apiKey, body), await start(apiKey, body), await start(apiKey, body)];
      const refused = await h.v1(apiKey, { method: 'POST', url: '/v1/imports', payload: body });
      expect(refused.statusCode).toBe(429);
      expect(refused.json()).toEqual({
        error: 'too_many_imports',
        message: 'This organization already has 3 imports queued or running; wait for one to finish',
      });
      // The three wait out the pause without holding the worker: another organization imports meanwhile.
      for (const id of ids) {
        await expect
          .poll(
            async () => {
              const row = await h.testStore.store.db
                .selectFrom('imports')
                .select(['status', 'claim_token', 'claimed_until'])
                .where('id', '=', id)
                .executeTakeFirstOrThrow();
              return row.status === 'running' && row.claim_token === null && row.claimed_until !== null;
            },
            { timeout: 30_000 },
          )
          .toBe(true);
      }
      const other = await org();
      const csv = await start(other.apiKey, { source: 'csv', csv: 'url\nhttps://example.com/meanwhile' });
      expect((await finished(other.apiKey, csv)).status).toBe('done');
      expect((await h.v1(apiKey, { method: 'GET', url: '/v1/imports' })).json()).toMatchObject({
        imports: [{ status: 'running' }, { status: 'running' }, { status: 'running' }],
      });
    });
  });

  describe.skipIf(kind.skipReason !== null)(
    `imports without IMPORT_ALLOW_PRIVATE_SOURCES on ${kind.name}`,
    () => {
      let h: HostedHarness;
      beforeAll(async () => {
        h = await startHosted(kind);
      });
      afterAll(() => h?.close());

      it('a source on a private address is refused before anything is queued (the SSRF guard)', async () => {
        const { apiKey } = await h.org('legend');
        const response = await h.v1(apiKey, {
          method: 'POST',
          url: '/v1/imports',
          payload: { source: 'kutt', baseUrl: 'http://127.0.0.1:3000', apiKey: 'k' },
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({
          error: 'invalid_body',
          message: 'baseUrl: Only https URLs are allowed',
        });
        const list = (await h.v1(apiKey, { method: 'GET', url: '/v1/imports' })).json() as {
          imports: unknown[];
        };
        expect(list.imports).toEqual([]);
      });
    },
  );
}
