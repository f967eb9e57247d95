import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openImportStack } from '../../src/cli/import-stack.js';
import { parseConfig } from '../../src/config.js';
import { AppError } from '../../src/errors.js';
import { MAX_ACTIVE_IMPORTS } from '../../src/imports/repo.js';
import { IMPORT_DEADLINE_MS, IMPORT_LEASE_MS } from '../../src/imports/worker.js';
import type { LinkService } from '../../src/links/service.js';
import { createGuardedFetcher } from '../../src/net/guarded-fetch.js';
import { featuresOf } from '../../src/tenancy/plans.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';
import { MangledBitly, withNext } from './mangled-bitly.js';

/**
 * The import job across instances: claimed by one worker at a time, and resumed after a crash at the
 * last saved page without importing anything twice. Two stacks on one store stand for two instances.
 */

const config = parseConfig(
  { BASE_URL: 'https://lnk.example', SESSION_SECRET: 'test-session-secret-0123456789abcdef' },
  'hosted',
);
/** Slugs are unique per host across organizations: each test takes its own prefix. */
const csvOf = (rows: number, prefix: string) =>
  ['url,slug', ...Array.from({ length: rows }, (_, i) => `https://example.com/w/${i},${prefix}${i}`)].join(
    '\n',
  );

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`the import worker on ${kind.name}`, () => {
    let testStore: TestStore;
    beforeAll(async () => {
      testStore = await kind.create();
    });
    afterAll(() => testStore?.dispose());

    const stack = (options: Parameters<typeof openImportStack>[3] = {}) =>
      openImportStack(testStore.store, config, pino({ level: 'silent' }), options);
    /** A stack whose own worker stays still (a start nudges it): the test runs the worker it makes. */
    const quietStack = async (options: Parameters<typeof openImportStack>[3] = {}) => {
      const s = stack(options);
      await s.imports.worker.stop();
      return s;
    };
    const legendOrg = async () => {
      const { orgId } = await stack().accounts.createOrganization({ name: 'Importer', tier: 'legend' });
      return { orgId, tier: 'legend' as const, features: featuresOf('legend') };
    };
    const linkCount = async (orgId: string) =>
      Number(
        (
          await testStore.store.db
            .selectFrom('links')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('org_id', '=', orgId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('an import interrupted mid-page is resumed by another instance once its claim runs out, nothing twice', async () => {
      const ctx = await legendOrg();
      let clock = Date.parse('2026-02-01T10:00:00Z');
      const now = () => new Date(clock);
      // Instance A stops dead in its 550th link (as a killed process would): page 1 (500 rows) is saved,
      // 49 links of page 2 exist but their page was never saved.
      let creates = 0;
      const dying = stack({
        overrides: { now },
        wrapLinks: (links: LinkService) => ({
          create: async (...args: Parameters<LinkService['create']>) => {
            if (++creates === 550) return new Promise<never>(() => undefined);
            return links.create(...args);
          },
        }),
      });
      const { id } = await dying.imports.service.start(ctx, { source: 'csv', csv: csvOf(600, 'r') });
      void dying.imports.worker.drain();
      await expect.poll(() => creates, { timeout: 60_000 }).toBe(550);
      const halfway = await dying.imports.service.get(ctx, id);
      expect(halfway).toMatchObject({ status: 'running', imported: 500, total: 600 });
      expect(await linkCount(ctx.orgId)).toBe(549);

      // Instance B: A's claim still holds, so nothing to take; once it has run out, B resumes at row 502.
      const survivor = stack({ overrides: { now } });
      await survivor.imports.worker.drain();
      expect((await survivor.imports.service.get(ctx, id)).imported).toBe(500);
      clock += IMPORT_LEASE_MS + 1;
      await survivor.imports.worker.drain();
      const done = await survivor.imports.service.get(ctx, id);
      // The 49 links A made on the unsaved page are recognised as this import's own and counted once.
      expect(done).toMatchObject({ status: 'done', total: 600, imported: 600, skipped: 0, failed: 0 });
      expect(done.errors).toEqual([]);
      expect(await linkCount(ctx.orgId)).toBe(600);
      // A stays as a dead process would: never closed (its pass waits forever on the link it died in).
      await survivor.close();
    }, 120_000);

    it('two instances draining at once run an import once', async () => {
      const ctx = await legendOrg();
      const one = stack();
      const two = stack();
      const { id } = await one.imports.service.start(ctx, { source: 'csv', csv: csvOf(40, 'c') });
      let createdByTwo = 0;
      const counting = stack({
        wrapLinks: (links: LinkService) => ({
          create: async (...args: Parameters<LinkService['create']>) => {
            createdByTwo++;
            return links.create(...args);
          },
        }),
      });
      await Promise.all([
        one.imports.worker.drain(),
        counting.imports.worker.drain(),
        two.imports.worker.drain(),
      ]);
      const done = await one.imports.service.get(ctx, id);
      expect(done).toMatchObject({ status: 'done', imported: 40, skipped: 0, failed: 0 });
      expect(await linkCount(ctx.orgId)).toBe(40);
      expect([0, 40]).toContain(createdByTwo);
      await Promise.all([one.close(), two.close(), counting.close()]);
    });

    it('credentials are sealed while the import waits and erased once it ends', async () => {
      const ctx = await legendOrg();
      const s = stack();
      const { id } = await s.imports.service.start(ctx, {
        source: 'csv',
        csv: 'url\nhttps://secret.example/x',
      });
      const queued = await s.imports.repo.findById(id);
      expect(queued?.params).toBeTruthy();
      expect(queued?.params).not.toContain('secret.example');
      await s.imports.worker.drain();
      const ended = await s.imports.repo.findById(id);
      expect([ended?.status, ended?.params]).toEqual(['done', null]);
      await s.close();
    });
    it('workers serve organizations round-robin: a one-row import of B waits for a slice of A, not for all of it', async () => {
      const a = await legendOrg();
      const b = await legendOrg();
      const order: string[] = [];
      const s = await quietStack({
        wrapLinks: (links: LinkService) => ({
          create: async (...args: Parameters<LinkService['create']>) => {
            order.push(args[0].orgId === a.orgId ? 'A' : 'B');
            return links.create(...args);
          },
        }),
      });
      const big = await s.imports.service.start(a, { source: 'csv', csv: csvOf(1500, 'rr') });
      const small = await s.imports.service.start(b, { source: 'csv', csv: 'url\nhttps://example.com/b' });
      // A slice of one page (500 rows): then the organization served longest ago goes next.
      await s.imports.workerWith({ sliceMs: 0 }).drain();
      expect(order.indexOf('B')).toBe(500);
      expect(order).toHaveLength(1501);
      expect((await s.imports.service.get(b, small.id)).status).toBe('done');
      expect(await s.imports.service.get(a, big.id)).toMatchObject({ status: 'done', imported: 1500 });
      await s.close();
    }, 120_000);

    it(`an organization has at most ${MAX_ACTIVE_IMPORTS} imports queued or running: one more is 429 too_many_imports`, async () => {
      const ctx = await legendOrg();
      const other = await legendOrg();
      const s = await quietStack();
      const csv = 'url\nhttps://example.com/cap';
      for (let i = 0; i < MAX_ACTIVE_IMPORTS; i++) await s.imports.service.start(ctx, { source: 'csv', csv });
      const refused = await s.imports.service.start(ctx, { source: 'csv', csv }).catch((error) => error);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused).toMatchObject({
        code: 'too_many_imports',
        status: 429,
        message: `This organization already has ${MAX_ACTIVE_IMPORTS} imports queued or running; wait for one to finish`,
      });
      // Two at once for the last place: one gets it (the insert re-counts under a lock).
      const third = await legendOrg();
      const twice = await Promise.allSettled(
        Array.from({ length: MAX_ACTIVE_IMPORTS + 1 }, () =>
          s.imports.service.start(third, { source: 'csv', csv }),
        ),
      );
      expect(twice.filter((result) => result.status === 'fulfilled')).toHaveLength(MAX_ACTIVE_IMPORTS);
      // Another organization is not affected; once they end, the first may start again.
      await s.imports.service.start(other, { source: 'csv', csv });
      await s.imports.workerWith({}).drain();
      await s.imports.service.start(ctx, { source: 'csv', csv });
      await s.close();
    });

    it('an import past its total deadline fails with the reason and its credentials erased', async () => {
      const ctx = await legendOrg();
      let clock = Date.parse('2026-03-01T10:00:00Z');
      const s = await quietStack({ overrides: { now: () => new Date(clock) } });
      const { id } = await s.imports.service.start(ctx, { source: 'csv', csv: csvOf(1200, 'dl') });
      const worker = s.imports.workerWith({ sliceMs: 0 });
      // One page, then the import is handed back; the next claim comes after the deadline.
      const claimed = await s.imports.repo.claim(
        'tok-1',
        new Date(clock).toISOString(),
        new Date(clock + 60_000).toISOString(),
      );
      expect(claimed?.id).toBe(id);
      await worker.run(claimed as NonNullable<typeof claimed>, 'tok-1', undefined, { sliceMs: 0 });
      expect(await s.imports.service.get(ctx, id)).toMatchObject({ status: 'running', imported: 500 });
      clock += IMPORT_DEADLINE_MS + 1;
      await worker.drain();
      const ended = await s.imports.service.get(ctx, id);
      expect(ended).toMatchObject({ status: 'failed', imported: 500, total: 1200 });
      expect(ended.errors).toEqual([
        {
          item: 'Import',
          reason:
            'The import did not finish within 2 hours of starting; start it again to import the rest (what is already imported is skipped)',
        },
      ]);
      expect((await s.imports.repo.findById(id))?.params).toBeNull();
      await s.close();
    }, 60_000);

    describe('against a Bitly fake', () => {
      const bitly = new MangledBitly().seed(250);
      const fetcher = createGuardedFetcher({ allowPrivate: true });
      beforeAll(async () => {
        await bitly.start();
      });
      afterAll(async () => {
        await fetcher.close();
        await bitly.stop();
      });
      const bitlyImport = { source: 'bitly' as const, token: bitly.token, groupGuid: 'Bg1' };

      it('a pagination.next that is not a URL fails the import at once, says why, and erases the token', async () => {
        const ctx = await legendOrg();
        const s = await quietStack({ overrides: { fetcher } });
        bitly.mangle = withNext('search_after=abc');
        try {
          const { id } = await s.imports.service.start(ctx, { ...bitlyImport, baseUrl: bitly.origin });
          await s.imports.workerWith({}).drain();
          const ended = await s.imports.service.get(ctx, id);
          expect(ended).toMatchObject({ status: 'failed', imported: 0 });
          expect(ended.errors).toEqual([
            {
              item: 'Bitly API',
              reason:
                'Bitly sent an answer linkhop cannot read: `pagination.next` is not an http(s) URL (got "search_after=abc")',
            },
          ]);
          const row = await s.imports.repo.findById(id);
          expect([row?.params, row?.claim_token]).toEqual([null, null]);
        } finally {
          bitly.mangle = null;
          await s.close();
        }
      });

      it('a control character in what a source sends fails that item, not the import (no 5xx from the store)', async () => {
        const ctx = await legendOrg();
        const s = await quietStack({ overrides: { fetcher } });
        bitly.mangle = (body) => ({
          ...body,
          // Slugs of their own (ctl…), so the other tests' imports of the same fake find theirs free.
          links: (body.links as { link: string }[]).map((link, i) =>
            i === 0
              ? { ...link, title: 'bad\u0000title', link: 'https://bit.ly/nul\u0000' }
              : { ...link, link: link.link.replace('/bl', '/ctl') },
          ),
        });
        try {
          const { id } = await s.imports.service.start(ctx, { ...bitlyImport, baseUrl: bitly.origin });
          await s.imports.workerWith({}).drain();
          const ended = await s.imports.service.get(ctx, id);
          expect(ended).toMatchObject({ status: 'done', failed: 3, imported: 247 });
          expect(ended.errors[0]).toEqual({
            item: 'bit.ly/nul\uFFFD',
            reason: 'its URL, slug, title or tags hold control characters',
          });
        } finally {
          bitly.mangle = null;
          await s.close();
        }
      });

      it('a long Retry-After hands the import back until then; other organizations import meanwhile', async () => {
        const slow = await legendOrg();
        const other = await legendOrg();
        let clock = Date.parse('2026-03-02T10:00:00Z');
        const s = await quietStack({ overrides: { fetcher, now: () => new Date(clock) } });
        const worker = s.imports.workerWith({});
        const throttled = await s.imports.service.start(slow, { ...bitlyImport, baseUrl: bitly.origin });
        const csv = await s.imports.service.start(other, { source: 'csv', csv: csvOf(3, 'ra') });
        bitly.throttleNext(1, '600');
        await worker.drain();
        const parked = await s.imports.repo.findById(throttled.id);
        expect(parked).toMatchObject({ status: 'running', imported: 0, claim_token: null });
        expect(parked?.claimed_until).toBe(new Date(clock + 600_000).toISOString());
        expect(parked?.params).toBeTruthy();
        expect((await s.imports.service.get(other, csv.id)).status).toBe('done');
        clock += 600_001;
        await worker.drain();
        expect(await s.imports.service.get(slow, throttled.id)).toMatchObject({
          status: 'done',
          imported: 250,
        });
        await s.close();
      });
    });

    it('reading and sealing a maximum-size CSV hands the event loop back many times (nothing else waits for it)', async () => {
      const ctx = await legendOrg();
      const s = stack();
      // 10,000 rows of 800 characters: 8 MB, the most one import takes.
      const pad = 'x'.repeat(760);
      const rows = Array.from({ length: 10_000 }, (_, i) => `https://example.com/${pad}/${i},big${i}`);
      const csv = ['url,slug', ...rows].join('\n');
      let pending = true;
      let turns = 0;
      const tick = () => {
        turns++;
        if (pending) setImmediate(tick);
      };
      setImmediate(tick);
      const { id } = await s.imports.service.start(ctx, { source: 'csv', csv });
      pending = false;
      // Reading 8 MB in 128 KB stretches alone is 60 turns; one blocking read was 0 on SQLite.
      expect(turns).toBeGreaterThanOrEqual(40);
      expect((await s.imports.service.get(ctx, id)).total).toBe(10_000);
      await s.close();
    });
  });
}
