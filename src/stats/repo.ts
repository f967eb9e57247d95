import type { Store } from '../store/database.js';

/** The one query of public stats: which link, if any, published its stats at (host, slug). */
export function createStatsRepo(store: Store) {
  const { db } = store;
  return {
    /** The link at (host, slug) when its owner made its stats public (archived links included). */
    async findPublic(
      host: string,
      slug: string,
    ): Promise<{ id: string; orgId: string; slug: string; tier: string } | undefined> {
      return (
        db
          .selectFrom('links')
          .innerJoin('organizations', 'organizations.id', 'links.org_id')
          .select([
            'links.id as id',
            'links.org_id as orgId',
            'links.slug as slug',
            'organizations.tier as tier',
          ])
          .where('links.host', '=', host)
          .where('links.slug', '=', slug)
          .where('links.public_stats', '=', 1)
          // An erased organization's stats are no one's to publish (issue #30).
          .where('organizations.deleted_at', 'is', null)
          .executeTakeFirst()
      );
    },
  };
}

export type StatsRepo = ReturnType<typeof createStatsRepo>;
