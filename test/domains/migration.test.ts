import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { composeHosted } from '../../src/app.js';
import { parseConfig } from '../../src/config.js';
import { down, up } from '../../src/store/migrations/014-domains.js';
import { storeKinds } from '../helpers/stores.js';
import { UA } from '../helpers/user-agents.js';

/**
 * Migration 013 on a database from before domains: each hostname in use goes to the organization whose
 * link on it is the oldest, verified; conflicts are logged; every existing link keeps redirecting.
 */
for (const kind of storeKinds) {
  describe.skipIf(kind.skipReason !== null)(`migration 014-domains on ${kind.name}`, () => {
    it('gives each hostname to its first user, logs the conflicts, and every link keeps redirecting', async () => {
      const testStore = await kind.create();
      const { db } = testStore.store;
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        await down(db as never);
        const day = (n: number) => `2026-0${n}-01T00:00:00.000Z`;
        await db
          .insertInto('organizations')
          .values(
            ['first', 'second', 'third'].map((id) => ({
              id,
              name: id,
              tier: 'sidekick',
              created_at: day(1),
            })),
          )
          .execute();
        const link = (id: string, org: string, host: string, slug: string, at: number) => ({
          id,
          org_id: org,
          host,
          slug,
          destination: `https://example.com/${id}`,
          platform_key: null,
          archived_at: null,
          created_at: day(at),
          updated_at: day(at),
        });
        await db
          .insertInto('links')
          .values([
            link('l-second', 'second', 'go.shared.example', 'b', 3),
            link('l-first', 'first', 'go.shared.example', 'a', 2),
            link('l-third', 'third', 'go.shared.example', 'c', 4),
            link('l-first-2', 'first', 'go.shared.example', 'a2', 5),
            link('l-own', 'third', 'go.third.example', 'own', 6),
            link('l-default', 'second', '', 'plain', 1),
          ])
          .execute();

        await up(db as never);

        const domains = await db
          .selectFrom('domains')
          .select(['org_id', 'hostname', 'verified_at'])
          .orderBy('hostname')
          .execute();
        expect(domains).toEqual([
          { org_id: 'first', hostname: 'go.shared.example', verified_at: expect.any(String) },
          { org_id: 'third', hostname: 'go.third.example', verified_at: expect.any(String) },
        ]);
        const lines = stderr.mock.calls
          .map(([chunk]) => String(chunk))
          .filter((line) => line.includes('014-domains'))
          .map((line) => JSON.parse(line));
        expect(lines).toEqual([
          expect.objectContaining({
            level: 40,
            hostname: 'go.shared.example',
            ownerOrgId: 'first',
            others: [
              { orgId: 'second', linkId: 'l-second', slug: 'b' },
              { orgId: 'third', linkId: 'l-third', slug: 'c' },
            ],
          }),
        ]);
      } finally {
        stderr.mockRestore();
      }

      const composed = await composeHosted(
        parseConfig({ BASE_URL: 'https://lnk.example' }, 'hosted'),
        testStore.store,
        pino({ level: 'silent' }),
      );
      try {
        const visit = (host: string, slug: string) =>
          composed.app.inject({
            method: 'GET',
            url: `/${slug}`,
            headers: { host, 'user-agent': UA.desktopChrome },
          });
        for (const [host, slug, id] of [
          ['go.shared.example', 'a', 'l-first'],
          ['go.shared.example', 'b', 'l-second'],
          ['go.shared.example', 'c', 'l-third'],
          ['go.third.example', 'own', 'l-own'],
          ['lnk.example', 'plain', 'l-default'],
        ] as const) {
          const response = await visit(host, slug);
          expect(response.statusCode, `${host}/${slug}`).toBe(302);
          expect(response.headers.location).toBe(`https://example.com/${id}`);
        }
        expect((await visit('lnk.example', 'a')).statusCode).toBe(404);
      } finally {
        await composed.close();
        await testStore.dispose();
      }
    });
  });
}
