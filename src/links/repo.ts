import type { Store } from '../store/database.js';

/** What the redirect needs of a hosted link. */
export interface RedirectLinkRow {
  id: string;
  orgId: string;
  destination: string;
}

export interface LinkRepo {
  /** Archived links are included: archiving never stops a link from redirecting. */
  findForRedirect(host: string, slug: string): Promise<RedirectLinkRow | undefined>;
}

export function createLinkRepo(store: Store): LinkRepo {
  const { db } = store;
  return {
    async findForRedirect(host, slug) {
      const row = await db
        .selectFrom('links')
        .select(['id', 'org_id', 'destination'])
        .where('host', '=', host)
        .where('slug', '=', slug)
        .executeTakeFirst();
      return row && { id: row.id, orgId: row.org_id, destination: row.destination };
    },
  };
}
