import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAuditRepo } from '../../src/audit/repo.js';
import { createAuditLog } from '../../src/audit/service.js';
import { openCliLinks } from '../../src/cli/link-stack.js';
import { composeBulkActions } from '../../src/compose/bulk-actions.js';
import { parseConfig } from '../../src/config.js';
import { BULK_LEASE_MS } from '../../src/links/bulk-worker.js';
import { createLinkRepo } from '../../src/links/repo.js';
import type { LinkService } from '../../src/links/service.js';
import { featuresOf } from '../../src/tenancy/plans.js';
import { makeTeam } from '../accounts/teams.js';
import { type HostedHarness, startHosted } from '../helpers/hosted.js';
import { storeKinds } from '../helpers/stores.js';

/**
 * Bulk actions on links and the CSV export (issue #34), through the real app on a real store: ids and filter
 * selections, each action, one audit row and one event per changed link, the frozen selection, jobs with
 * progress resumed after a worker dies, gates, and an export that the real CSV importer turns back into
 * the same links.
 */

const config = parseConfig(
  { BASE_URL: 'https://lnk.example', SESSION_SECRET: 'test-session-secret-0123456789abcdef' },
  'hosted',
);

interface BulkAnswer {
  id: string | null;
  status: string;
  total: number;
  processed: number;
  changed: number;
  unchanged: number;
  failed: number;
  results: { linkId: string; outcome: string; error?: { error: string; message: string } }[];
}
interface LinkShape {
  id: string;
  slug: string;
  destination: string;
  tags: string[];
  folderId: string | null;
  archived: boolean;
  createdAt: string;
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`bulk actions on ${kind.name}`, () => {
    let h: HostedHarness;
    beforeAll(async () => {
      h = await startHosted(kind, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' });
    });
    afterAll(async () => h?.close());

    async function legend() {
      const { apiKey, orgId, keyId } = await h.org('legend');
      const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT', url: string, payload?: object) =>
        h.v1(apiKey, { method, url, ...(payload ? { payload } : {}) });
      /** `count` links made through the bulk create, 100 a call; their ids, oldest first. */
      const make = async (count: number, extra: (i: number) => object = () => ({})) => {
        const ids: string[] = [];
        for (let from = 0; from < count; from += 100) {
          const links = Array.from({ length: Math.min(100, count - from) }, (_, i) => ({
            url: `https://example.com/${orgId}/${from + i}`,
            ...extra(from + i),
          }));
          const made = await call('POST', '/v1/links/bulk', { links });
          expect(made.statusCode, made.body).toBe(200);
          for (const result of made.json().results) ids.push(result.id);
        }
        return ids;
      };
      const bulk = async (payload: object, status = 200) => {
        const answer = await call('POST', '/v1/bulk-actions', payload);
        expect(answer.statusCode, answer.body + JSON.stringify(h.logged.slice(-1)).slice(0, 1500)).toBe(
          status,
        );
        return answer.json() as BulkAnswer;
      };
      const link = async (id: string) => (await call('GET', `/v1/links/${id}`)).json() as LinkShape;
      /** The audit rows of `action` per link id, read from the store (the log's own rows). */
      const auditRows = async (action: string) => {
        const rows = await h.testStore.store.db
          .selectFrom('audit_log')
          .select(['target_id', 'actor_id'])
          .where('org_id', '=', orgId)
          .where('action', '=', action)
          .execute();
        const perLink = new Map<string, number>();
        for (const row of rows) perLink.set(row.target_id, (perLink.get(row.target_id) ?? 0) + 1);
        return { perLink, actors: new Set(rows.map((row) => row.actor_id)) };
      };
      const waitForJob = async (id: string) => {
        let seen: BulkAnswer | undefined;
        const started = Date.now();
        do {
          seen = (await call('GET', `/v1/bulk-actions/${id}`)).json() as BulkAnswer;
          if (seen.status === 'done' || seen.status === 'failed') return seen;
          // Not too often: /v1 answers 120 calls a minute per key.
          await new Promise((resolve) => setTimeout(resolve, 300));
        } while (Date.now() - started < 60_000);
        throw new Error(`bulk action ${id} still ${seen?.status}`);
      };
      return { apiKey, orgId, keyId, call, make, bulk, link, auditRows, waitForJob };
    }

    it('adds tags to links named by id: each changed once, a link already tagged unchanged, an unknown id failed', async () => {
      const org = await legend();
      const [a, b, c] = (await org.make(3, (i) => (i === 1 ? { tags: ['spring'] } : {}))) as [
        string,
        string,
        string,
      ];
      const missing = randomUUID();
      const answer = await org.bulk({
        selection: { ids: [a, b, c, a, missing] },
        action: { type: 'add_tags', tags: ['spring', ' sale '] },
      });
      expect(answer).toMatchObject({
        id: null,
        status: 'done',
        total: 4,
        changed: 3,
        unchanged: 0,
        failed: 1,
      });
      expect(answer.results.map((r) => [r.linkId, r.outcome])).toEqual([
        [a, 'changed'],
        [b, 'changed'],
        [c, 'changed'],
        [missing, 'failed'],
      ]);
      expect(answer.results[3]?.error).toMatchObject({ error: 'not_found' });
      expect((await org.link(a)).tags).toEqual(['sale', 'spring']);
      expect((await org.link(b)).tags).toEqual(['sale', 'spring']);

      // Again: nothing to do, nothing written.
      const again = await org.bulk({
        selection: { ids: [a, b] },
        action: { type: 'add_tags', tags: ['sale'] },
      });
      expect(again).toMatchObject({ changed: 0, unchanged: 2, failed: 0 });
      const { perLink, actors } = await org.auditRows('link.updated');
      expect(Object.fromEntries(perLink)).toEqual({ [a]: 1, [b]: 1, [c]: 1 });
      expect([...actors]).toEqual([org.keyId]);
    });

    it('removes tags, moves into and out of a folder, archives and unarchives the links a filter matches', async () => {
      const org = await legend();
      const ids = await org.make(4, (i) => ({ tags: i < 3 ? ['old', 'keep'] : ['keep'] }));
      const folder = (await org.call('POST', '/v1/folders', { name: 'Spring' })).json() as { id: string };
      const old = { filter: { tag: 'old' } };

      const moved = await org.bulk({ selection: old, action: { type: 'move', folderId: folder.id } });
      expect(moved).toMatchObject({ total: 3, changed: 3 });
      const removed = await org.bulk({ selection: old, action: { type: 'remove_tags', tags: ['old'] } });
      expect(removed).toMatchObject({ total: 3, changed: 3 });
      for (const id of ids) expect((await org.link(id)).tags).toEqual(['keep']);
      const inFolder = { filter: { folderId: folder.id } };
      expect((await org.bulk({ selection: inFolder, action: { type: 'archive' } })).changed).toBe(3);
      expect((await org.link(ids[0] as string)).archived).toBe(true);
      expect((await org.link(ids[3] as string)).archived).toBe(false);
      const archived = { filter: { archived: true, folderId: folder.id } };
      expect((await org.bulk({ selection: archived, action: { type: 'unarchive' } })).changed).toBe(3);
      const out = await org.bulk({ selection: inFolder, action: { type: 'move', folderId: null } });
      expect(out.changed).toBe(3);
      expect((await org.link(ids[0] as string)).folderId).toBeNull();

      const archivedRows = await org.auditRows('link.archived');
      expect([...archivedRows.perLink.values()]).toEqual([1, 1, 1]);
      // Moved in, untagged, unarchived, moved out: four updates of each of the three links.
      expect([...(await org.auditRows('link.updated')).perLink.values()]).toEqual([4, 4, 4]);
    });

    it("queues each changed link's event as a single write does", async () => {
      const org = await legend();
      const hook = await org.call('POST', '/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['link.updated', 'link.archived'],
      });
      expect(hook.statusCode, hook.body).toBe(201);
      const ids = await org.make(3);
      await org.bulk({ selection: { ids }, action: { type: 'add_tags', tags: ['x'] } });
      await org.bulk({ selection: { ids: ids.slice(0, 2) }, action: { type: 'archive' } });
      const rows = await h.testStore.store.db
        .selectFrom('webhook_deliveries')
        .select(['event', 'payload'])
        .where('org_id', '=', org.orgId)
        .execute();
      const events = rows.map((row) => `${row.event} ${JSON.parse(row.payload).id}`).sort();
      expect(events).toEqual(
        [
          ...ids.map((id) => `link.updated ${id}`),
          ...ids.slice(0, 2).map((id) => `link.archived ${id}`),
        ].sort(),
      );
    });

    it('a link that would pass 20 tags, or is read-only, fails alone; a folder that is not there is a 400', async () => {
      const org = await legend();
      const tags = Array.from({ length: 20 }, (_, i) => `t${i}`);
      const [full, fine] = (await org.make(2, (i) => (i === 0 ? { tags } : {}))) as [string, string];
      const answer = await org.bulk({
        selection: { ids: [full, fine] },
        action: { type: 'add_tags', tags: ['new'] },
      });
      expect(answer.results[0]).toMatchObject({ outcome: 'failed', error: { error: 'invalid_body' } });
      expect(answer.results[1]).toMatchObject({ outcome: 'changed' });
      const noFolder = await org.call('POST', '/v1/bulk-actions', {
        selection: { ids: [fine] },
        action: { type: 'move', folderId: randomUUID() },
      });
      expect(noFolder.statusCode).toBe(400);
      expect(noFolder.json()).toMatchObject({ error: 'invalid_body', message: 'No such folder' });
    });

    it('refuses bad bodies with 400 and the error body, never a 5xx', async () => {
      const org = await legend();
      const [id] = (await org.make(1)) as [string];
      const bad: object[] = [
        {},
        { selection: { ids: [id] } },
        { selection: { ids: [id] }, action: { type: 'delete_everything' } },
        { selection: { ids: [] }, action: { type: 'archive' } },
        { selection: { ids: ['not-a-uuid'] }, action: { type: 'archive' } },
        { selection: { ids: [id], filter: {} }, action: { type: 'archive' } },
        { selection: { filter: { archived: 'yes' } }, action: { type: 'archive' } },
        { selection: { ids: Array.from({ length: 1001 }, () => randomUUID()) }, action: { type: 'archive' } },
        { selection: { ids: [id] }, action: { type: 'add_tags', tags: [] } },
        { selection: { ids: [id] }, action: { type: 'add_tags', tags: ['x'.repeat(65)] } },
        { selection: { ids: [id] }, action: { type: 'move' } },
        { selection: { ids: [id] }, action: { type: 'archive', extra: 1 } },
      ];
      for (const payload of bad) {
        const answer = await org.call('POST', '/v1/bulk-actions', payload);
        expect(answer.statusCode, JSON.stringify(payload)).toBe(400);
        expect(answer.json()).toMatchObject({ error: 'invalid_body', message: expect.any(String) });
      }
      const unknown = await org.call('GET', `/v1/bulk-actions/${randomUUID()}`);
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ error: 'not_found' });
      const badExport = await org.call('GET', '/v1/links/export.csv?ids=nope');
      expect(badExport.statusCode).toBe(400);
      expect(badExport.json()).toMatchObject({ error: 'invalid_query' });
    });

    it('needs links:write and a member, and the bulk power of the plan', async () => {
      const org = await legend();
      const [id] = (await org.make(1)) as [string];
      const payload = { selection: { ids: [id] }, action: { type: 'archive' } };
      const { apiKey: reader } = await h.accounts.mintApiKey(org.orgId, {
        name: 'r',
        scopes: ['links:read'],
      });
      const byReader = await h.v1(reader, { method: 'POST', url: '/v1/bulk-actions', payload });
      expect(byReader.statusCode).toBe(403);
      expect(byReader.json().error).toBe('forbidden_scope');
      // links:read may export.
      expect((await h.v1(reader, { method: 'GET', url: '/v1/links/export.csv' })).statusCode).toBe(200);

      const team = await makeTeam(h, `bulk-${randomUUID().slice(0, 8)}`);
      const made = (await team.as.member('POST', '/api/links', { url: 'https://example.com/t' })).json();
      const teamPayload = { selection: { ids: [made.id] }, action: { type: 'add_tags', tags: ['t'] } };
      const byViewer = await team.as.viewer('POST', '/api/bulk-actions', teamPayload);
      expect(byViewer.statusCode).toBe(403);
      expect(byViewer.json().error).toBe('forbidden_role');
      const byMember = await team.as.member('POST', '/api/bulk-actions', teamPayload);
      expect(byMember.statusCode, byMember.body).toBe(200);

      const hero = await h.owner('hero');
      const heroLink = (
        await h.api(hero.cookie, {
          method: 'POST',
          url: '/api/links',
          payload: { url: 'https://example.com/h' },
        })
      ).json();
      const refused = await h.api(hero.cookie, {
        method: 'POST',
        url: '/api/bulk-actions',
        payload: { selection: { ids: [heroLink.id] }, action: { type: 'archive' } },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error).toBe('bulk_create');
    });

    it('runs 250 links as a job with progress; the selection is frozen when asked; one audit row per link', {
      timeout: 90_000,
    }, async () => {
      const org = await legend();
      const ids = await org.make(250, () => ({ tags: ['batch'] }));
      const queued = await org.bulk(
        { selection: { filter: { tag: 'batch' } }, action: { type: 'add_tags', tags: ['done'] } },
        202,
      );
      expect(queued).toMatchObject({ status: 'queued', total: 250, processed: 0 });
      expect(queued.id).toEqual(expect.any(String));
      // Made after the action was asked for: matches the filter, but is not part of it.
      const [late] = (await org.make(1, () => ({ tags: ['batch'] }))) as [string];
      const done = await org.waitForJob(queued.id as string);
      expect(done).toMatchObject({ status: 'done', total: 250, processed: 250, changed: 250, failed: 0 });
      expect((await org.link(late)).tags).toEqual(['batch']);
      const tagged = await org.call('GET', '/v1/links?tag=done');
      expect(
        tagged
          .json()
          .links.map((l: LinkShape) => l.id)
          .sort(),
      ).toEqual([...ids].sort());
      const { perLink } = await org.auditRows('link.updated');
      expect(perLink.size).toBe(250);
      expect([...perLink.values()].every((n) => n === 1)).toBe(true);
    });

    it('a job whose worker dies mid-way is resumed by another once its lease runs out, nothing written twice', {
      timeout: 60_000,
    }, async () => {
      const org = await legend();
      const ids = await org.make(120);
      // Another instance's services on the same store, as the CLI makes them (the link service with its audit log).
      const now = () => new Date();
      const cli = openCliLinks(h.testStore.store, config, {
        now,
        audit: createAuditLog({ repo: createAuditRepo(h.testStore.store), now }),
      });
      const stack = composeBulkActions({
        store: h.testStore.store,
        links: cli.links,
        linkRepo: createLinkRepo(h.testStore.store),
        accounts: cli.accounts,
        logger: pino({ level: 'silent' }),
        now,
        startWorker: false,
      });
      // Quiet: a start nudges the worker, and this test runs the workers it makes itself.
      await stack.worker.stop();
      const ctx = {
        orgId: org.orgId,
        tier: 'legend' as const,
        features: featuresOf('legend'),
        actor: { type: 'key' as const, id: org.keyId, label: 'bulk test' },
      };
      const { job } = await stack.service.start(ctx, {
        selection: { ids },
        action: { type: 'add_tags', tags: ['resumed'] },
      });
      // Instance A writes its 40th link and dies before it records that link's outcome.
      let updates = 0;
      const base = cli.links;
      const dying = stack.workerWith({
        links: {
          get: base.get,
          list: base.list,
          archive: base.archive,
          unarchive: base.unarchive,
          update: async (...args: Parameters<LinkService['update']>) => {
            const written = await base.update(...args);
            if (++updates === 40) return new Promise<never>(() => undefined);
            return written;
          },
        },
      });
      void dying.drain();
      await expect.poll(() => updates, { timeout: 30_000 }).toBe(40);
      const halfway = await stack.service.get(ctx, job.id as string);
      expect(halfway).toMatchObject({ status: 'running', processed: 39 });

      // Instance B, once A's lease has run out.
      const later = () => new Date(Date.now() + BULK_LEASE_MS + 1000);
      await stack.workerWith({ now: later }).drain();
      const done = await stack.service.get(ctx, job.id as string);
      expect(done).toMatchObject({ status: 'done', total: 120, processed: 120, failed: 0 });
      // The 40th link was written by A: B found it tagged and left it alone.
      expect(done).toMatchObject({ changed: 119, unchanged: 1 });
      const { perLink } = await org.auditRows('link.updated');
      expect(perLink.size).toBe(120);
      expect([...perLink.values()].every((n) => n === 1)).toBe(true);
    });

    it('exports links as CSV that the real importer turns back into the same links', async () => {
      const org = await legend();
      const prefix = `x${randomUUID().slice(0, 6)}`;
      const ids = await org.make(6, (i) => ({
        slug: i === 0 ? `-${prefix}` : `${prefix}${i}`,
        tags: i === 5 ? ['=cmd'] : i % 2 === 0 ? ['spring', 'sale'] : [],
      }));
      await org.call('PUT', `/v1/links/${ids[1]}/og`, { title: 'Spring, "the" sale' });
      const csv = await org.call('GET', '/v1/links/export.csv');
      expect(csv.statusCode).toBe(200);
      expect(csv.headers['content-type']).toMatch(/^text\/csv/);
      const lines = csv.body.trim().split('\r\n');
      expect(lines[0]).toBe('url,slug,tags,title,created_at');
      expect(lines).toHaveLength(7);
      const byIds = await org.call('GET', `/v1/links/export.csv?ids=${ids[1]},${ids[0]}`);
      expect(
        byIds.body
          .trim()
          .split('\r\n')
          .slice(1)
          .map((line) => line.split(',')[1]),
      ).toEqual([`${prefix}1`, `-${prefix}`]);

      // Another service on a store of its own: the same slugs are free there.
      const other = await startHosted(kind);
      try {
        const { apiKey } = await other.org('legend');
        const started = await other.v1(apiKey, {
          method: 'POST',
          url: '/v1/imports',
          payload: { source: 'csv', csv: csv.body },
        });
        expect(started.statusCode, started.body).toBe(202);
        let status = '';
        for (let i = 0; i < 600 && status !== 'done'; i++) {
          const progress = await other.v1(apiKey, { method: 'GET', url: `/v1/imports/${started.json().id}` });
          status = progress.json().status;
          if (status === 'failed') throw new Error(progress.body);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect(status).toBe('done');
        const shape = (l: LinkShape) => [l.slug, l.destination, [...l.tags].sort(), l.createdAt];
        const mine = (await org.call('GET', '/v1/links')).json().links as LinkShape[];
        const theirs = (await other.v1(apiKey, { method: 'GET', url: '/v1/links' })).json()
          .links as LinkShape[];
        const formula = `${prefix}5`;
        const others = (links: LinkShape[]) =>
          links
            .filter((l) => l.slug !== formula)
            .map(shape)
            .sort();
        expect(others(theirs)).toEqual(others(mine));
        expect(theirs.find((l) => l.slug === formula)?.tags).toEqual(["'=cmd"]);
        const titled = theirs.find((l) => l.slug === `${prefix}1`) as LinkShape;
        const og = await other.v1(apiKey, { method: 'GET', url: `/v1/links/${titled.id}/og` });
        expect(og.json().title).toBe('Spring, "the" sale');
      } finally {
        await other.close();
      }
    });
  });
}
