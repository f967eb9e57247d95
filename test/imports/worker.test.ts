import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { featuresOf } from '../../src/accounts/plans.js';
import { openImportStack } from '../../src/cli/import-stack.js';
import { parseConfig } from '../../src/config.js';
import { IMPORT_LEASE_MS } from '../../src/imports/worker.js';
import type { LinkService } from '../../src/links/service.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';

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
  });
}
