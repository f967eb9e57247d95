import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/store/database.js';
import { pingStore } from '../../src/store/health.js';
import { storeKinds } from '../helpers/stores.js';

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`migrations on ${kind.name}`, () => {
    it('apply from scratch, then again as a no-op, and leave every table usable', async () => {
      const testStore = await kind.create();
      try {
        expect(await migrateToLatest(testStore.store)).toEqual({ applied: [] });
        await pingStore(testStore.store);
        const { db } = testStore.store;
        await db
          .insertInto('organizations')
          .values({ id: 'o', name: 'n', tier: 'hero', created_at: 'x' })
          .execute();
        await db
          .insertInto('links')
          .values({
            id: 'l',
            org_id: 'o',
            host: '',
            slug: 's',
            destination: 'https://e.x',
            platform_key: null,
            archived_at: null,
            created_at: 'x',
            updated_at: 'x',
          })
          .execute();
        const link = await db.selectFrom('links').selectAll().executeTakeFirstOrThrow();
        expect(link.capture_emails).toBe(0);
        expect(link.read_only).toBe(0);
        expect(link.version).toBe(1);
      } finally {
        await testStore.dispose();
      }
    });

    it.skipIf(kind.name !== 'postgres')(
      'leaves a fifth of each rollup page free, for updates in place',
      async () => {
        const testStore = await kind.create();
        try {
          const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
          select relname, reloptions from pg_class
          where relkind = 'r' and relnamespace = current_schema()::regnamespace
            and relname in ('click_rollups', 'org_rollups', 'group_rollups', 'links')
          order by relname`.execute(testStore.store.db);
          expect(rows).toEqual([
            { relname: 'click_rollups', reloptions: ['fillfactor=80'] },
            { relname: 'group_rollups', reloptions: ['fillfactor=80'] },
            { relname: 'links', reloptions: null },
            { relname: 'org_rollups', reloptions: ['fillfactor=80'] },
          ]);
        } finally {
          await testStore.dispose();
        }
      },
    );

    it('keeps (host, slug) unique', async () => {
      const testStore = await kind.create();
      try {
        const { db } = testStore.store;
        await db
          .insertInto('organizations')
          .values({ id: 'o', name: 'n', tier: 'hero', created_at: 'x' })
          .execute();
        const row = (id: string, host: string) => ({
          id,
          org_id: 'o',
          host,
          slug: 'same',
          destination: 'https://e.x',
          platform_key: null,
          archived_at: null,
          created_at: 'x',
          updated_at: 'x',
        });
        await db.insertInto('links').values(row('a', '')).execute();
        await db.insertInto('links').values(row('b', 'brand.example')).execute();
        await expect(db.insertInto('links').values(row('c', '')).execute()).rejects.toThrow();
      } finally {
        await testStore.dispose();
      }
    });
  });
}
