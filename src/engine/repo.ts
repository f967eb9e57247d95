import { isUniqueViolation } from '../store/connections.js';
import type { EngineStore } from './store.js';

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

interface LinkColumns {
  slug: string;
  url: string;
  platform_key: string | null;
  created_at: string;
}

/** engine_links (migration 001) through the engine's store: two statements, written for both dialects. */
export function createEngineLinkRepo(store: EngineStore): EngineLinkRepo {
  return {
    async insert(row) {
      try {
        await store.query(
          'insert into engine_links (slug, url, platform_key, created_at) values (?, ?, ?, ?)',
          [row.slug, row.url, row.platformKey, row.createdAt],
        );
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async findBySlug(slug) {
      const [row] = await store.query<LinkColumns>(
        'select slug, url, platform_key, created_at from engine_links where slug = ?',
        [slug],
      );
      if (!row) return undefined;
      return { slug: row.slug, url: row.url, platformKey: row.platform_key, createdAt: row.created_at };
    },
  };
}
