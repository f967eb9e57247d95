import type { Store } from '../store/database.js';
import { isUniqueViolation } from '../store/database.js';

export interface EngineLinkRow {
  slug: string;
  url: string;
  platformKey: string | null;
  createdAt: string;
}

export interface EngineLinkRepo {
  /** Inserts the row; false when the slug is taken (the primary key decides, so racing creators cannot both win). */
  insert(row: EngineLinkRow): Promise<boolean>;
  findBySlug(slug: string): Promise<EngineLinkRow | undefined>;
}

export function createEngineLinkRepo(store: Store): EngineLinkRepo {
  const { db } = store;
  return {
    async insert(row) {
      try {
        await db
          .insertInto('engine_links')
          .values({ slug: row.slug, url: row.url, platform_key: row.platformKey, created_at: row.createdAt })
          .execute();
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async findBySlug(slug) {
      const row = await db.selectFrom('engine_links').selectAll().where('slug', '=', slug).executeTakeFirst();
      if (!row) return undefined;
      return { slug: row.slug, url: row.url, platformKey: row.platform_key, createdAt: row.created_at };
    },
  };
}
