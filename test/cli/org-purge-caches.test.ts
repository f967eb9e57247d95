import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORG_INVALIDATION_CHANNEL, RECORD_PREFIX } from '../../src/redirect/link-cache.js';
import {
  deploymentFact,
  REDIS_INVALIDATION,
  recordRedisInvalidation,
} from '../../src/store/deployment-facts.js';
import { childEnv } from '../helpers/env.js';
import { startHosted } from '../helpers/hosted.js';
import { connectRedis, redisSkipReason, redisUrl } from '../helpers/redis.js';
import { storeKinds, type TestStore } from '../helpers/stores.js';

/**
 * `linkhop org purge` where instances share their caches through Redis (issue #30): without REDIS_URL it
 * refuses and changes nothing; with it, it purges and tells every instance (and deletes the links' Redis
 * copies); a failed publish fails the command after the purge. Where no instance ever used Redis it runs
 * as before. The built CLI, on SQLite and PostgreSQL.
 */

const CLI = join(import.meta.dirname, '../../dist/cli/main.js');
const silent = { warn: () => {} };

/** The CLI's DATABASE_URL for the test store: PostgreSQL's throwaway schema goes in the URL. */
function cliUrl(testStore: TestStore): string {
  if (!testStore.schema) return testStore.url;
  return `${testStore.url}?options=${encodeURIComponent(`-c search_path=${testStore.schema}`)}`;
}

/** Runs the CLI without blocking this process (a Redis subscriber here must keep reading). */
function linkhop(env: Record<string, string>, ...args: string[]) {
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout: stdout.trim(), stderr }));
  });
}

for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(
    `org purge and the instances' caches on ${kind.name}`,
    {
      timeout: 60_000,
    },
    () => {
      let testStore: TestStore;
      let env: Record<string, string>;
      beforeAll(async () => {
        testStore = await kind.create();
        env = { DATABASE_URL: cliUrl(testStore) };
      });
      afterAll(async () => testStore?.dispose());

      /** An organization with one link (a fresh slug), as the purge finds them. */
      async function orgWithLink(tier = 'hero'): Promise<{ orgId: string; slug: string }> {
        const orgId = randomUUID();
        const slug = `purge-${orgId.slice(0, 8)}`;
        const at = new Date().toISOString();
        const db = testStore.store.db;
        await db
          .insertInto('organizations')
          .values({ id: orgId, name: 'Doomed', tier, created_at: at })
          .execute();
        await db
          .insertInto('links')
          .values({
            id: randomUUID(),
            org_id: orgId,
            host: '',
            slug,
            destination: 'https://example.com/doomed',
            platform_key: null,
            archived_at: null,
            created_at: at,
            updated_at: at,
          })
          .execute();
        return { orgId, slug };
      }

      async function left(orgId: string): Promise<{ orgs: number; links: number; tier?: string }> {
        const db = testStore.store.db;
        const org = await db
          .selectFrom('organizations')
          .select('tier')
          .where('id', '=', orgId)
          .executeTakeFirst();
        const links = await db.selectFrom('links').select('id').where('org_id', '=', orgId).execute();
        return { orgs: org ? 1 : 0, links: links.length, ...(org ? { tier: org.tier } : {}) };
      }

      // First, while no instance has recorded Redis in this database.
      it('runs without REDIS_URL where no instance ever used Redis', async () => {
        const { orgId } = await orgWithLink();
        const purged = await linkhop(env, 'org', 'purge', orgId);
        expect(purged.status, purged.stderr).toBe(0);
        expect(JSON.parse(purged.stdout)).toEqual({ orgId, linksDeleted: 1 });
        expect(await left(orgId)).toEqual({ orgs: 0, links: 0 });
      });

      it('refuses without REDIS_URL once an instance started with Redis, and purges nothing', async () => {
        await recordRedisInvalidation(testStore.store, silent, new Date('2026-02-03T04:05:06.000Z'));
        const { orgId } = await orgWithLink();
        const refused = await linkhop(env, 'org', 'purge', orgId);
        expect(refused.status).not.toBe(0);
        expect(refused.stdout).toBe('');
        expect(refused.stderr).toContain(
          "This database's instances share caches through Redis (seen 2026-02-03T04:05:06.000Z): run org " +
            'purge with REDIS_URL set, so every instance drops the purged links at once',
        );
        expect(await left(orgId)).toEqual({ orgs: 1, links: 1, tier: 'hero' });
        // A plan change has the same stale-cache hazard (branding, pixels): refused too.
        const setTier = await linkhop(env, 'org', 'set-tier', orgId, 'legend');
        expect(setTier.status).not.toBe(0);
        expect(setTier.stderr).toContain('run org set-tier with REDIS_URL set');
        expect(await left(orgId)).toEqual({ orgs: 1, links: 1, tier: 'hero' });
      });

      describe.skipIf(redisSkipReason !== null)('with Redis', () => {
        let subscriber: Redis;
        let redis: Redis;
        const heard: string[] = [];
        beforeAll(async () => {
          redis = connectRedis();
          subscriber = connectRedis();
          subscriber.on('message', (channel: string, message: string) => {
            if (channel === ORG_INVALIDATION_CHANNEL) heard.push(message);
          });
          await subscriber.subscribe(ORG_INVALIDATION_CHANNEL);
        });
        afterAll(() => {
          subscriber?.disconnect();
          redis?.disconnect();
        });

        it('a hosted instance started with REDIS_URL records it; one without does not', async () => {
          const plain = await startHosted(kind);
          const shared = await startHosted(kind, { REDIS_URL: redisUrl as string });
          try {
            expect(await deploymentFact(plain.testStore.store, REDIS_INVALIDATION)).toBeNull();
            const seen = await deploymentFact(shared.testStore.store, REDIS_INVALIDATION);
            expect(Date.now() - Date.parse(seen ?? '')).toBeLessThan(60_000);
          } finally {
            await plain.close();
            await shared.close();
          }
        });

        it('with REDIS_URL: purges, every instance is told, and the links’ Redis copies go', async () => {
          const { orgId, slug } = await orgWithLink();
          await redis.set(RECORD_PREFIX + slug, '{"copy":true}', 'EX', 600);
          const purged = await linkhop({ ...env, REDIS_URL: redisUrl as string }, 'org', 'purge', orgId);
          expect(purged.status, purged.stderr).toBe(0);
          expect(JSON.parse(purged.stdout)).toEqual({ orgId, linksDeleted: 1 });
          expect(await left(orgId)).toEqual({ orgs: 0, links: 0 });
          await expect.poll(() => heard.includes(orgId), { timeout: 5000 }).toBe(true);
          expect(await redis.exists(RECORD_PREFIX + slug)).toBe(0);
        });
      });

      it('with REDIS_URL but Redis away: purges, then says so on stderr and exits non-zero', async () => {
        const { orgId } = await orgWithLink();
        const purged = await linkhop({ ...env, REDIS_URL: 'redis://127.0.0.1:1' }, 'org', 'purge', orgId);
        expect(purged.status).not.toBe(0);
        expect(JSON.parse(purged.stdout)).toEqual({ orgId, linksDeleted: 1 });
        expect(purged.stderr).toContain('warning: instances not told to drop cached links');
        expect(purged.stderr).toContain(`${orgId} is purged, but the running instances were not told`);
        expect(await left(orgId)).toEqual({ orgs: 0, links: 0 });
      });
    },
  );
}
