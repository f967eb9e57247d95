import type { Kysely, Selectable } from 'kysely';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { BioPageTable, BioTables, MediaKitTable } from '../store/migrations/010-bio.js';
import type { Database } from '../store/schema.js';

/** Store queries of the creator pages (bio page and media kit). Every org-scoped query takes org_id. */

type BioDatabase = Database & BioTables;

export interface BioPageRecord {
  id: string;
  orgId: string;
  handle: string;
  title: string;
  bio: string | null;
  avatarUrl: string | null;
  theme: string | null;
  blocks: string;
  published: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface MediaKitRecord {
  pageId: string;
  published: boolean;
  show: string;
  createdAt: string;
  updatedAt: string;
}

/** The parts of a link a public page needs: where the service serves it. */
export interface LinkAddress {
  id: string;
  host: string;
  slug: string;
}

const toPage = (row: Selectable<BioPageTable>): BioPageRecord => ({
  id: row.id,
  orgId: row.org_id,
  handle: row.handle,
  title: row.title,
  bio: row.bio,
  avatarUrl: row.avatar_url,
  theme: row.theme,
  blocks: row.blocks,
  published: Number(row.published) === 1,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const toKit = (row: Selectable<MediaKitTable>): MediaKitRecord => ({
  pageId: row.page_id,
  published: Number(row.published) === 1,
  show: row.show,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createBioRepo(store: Store) {
  const db = store.db as unknown as Kysely<BioDatabase>;
  /** The caller's transaction (or connection) seen with the page tables. */
  const bio = (ex: Executor) => ex as unknown as Kysely<BioDatabase>;

  return {
    /** A page write's unit of work, opened by the service: the write and its audit row. */
    transaction: unitOfWork(store.db),

    async pageOfOrg(orgId: string): Promise<BioPageRecord | undefined> {
      const row = await db.selectFrom('bio_pages').selectAll().where('org_id', '=', orgId).executeTakeFirst();
      return row && toPage(row);
    },

    /** The page at a (lowercased) handle with its organization's tier, published or not. */
    async pageByHandle(handle: string): Promise<(BioPageRecord & { tier: string }) | undefined> {
      const row = await db
        .selectFrom('bio_pages')
        .innerJoin('organizations', 'organizations.id', 'bio_pages.org_id')
        .selectAll('bio_pages')
        .select('organizations.tier')
        .where('bio_pages.handle', '=', handle)
        .executeTakeFirst();
      return row && { ...toPage(row), tier: row.tier };
    },

    async handleOwner(handle: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('bio_pages')
        .select('org_id')
        .where('handle', '=', handle)
        .executeTakeFirst();
      return row?.org_id;
    },

    async insertPage(ex: Executor, page: BioPageRecord): Promise<void> {
      await bio(ex)
        .insertInto('bio_pages')
        .values({
          id: page.id,
          org_id: page.orgId,
          handle: page.handle,
          title: page.title,
          bio: page.bio,
          avatar_url: page.avatarUrl,
          theme: page.theme,
          blocks: page.blocks,
          published: page.published ? 1 : 0,
          created_at: page.createdAt,
          updated_at: page.updatedAt,
        })
        .execute();
    },

    async updatePage(ex: Executor, page: BioPageRecord): Promise<void> {
      await bio(ex)
        .updateTable('bio_pages')
        .set({
          handle: page.handle,
          title: page.title,
          bio: page.bio,
          avatar_url: page.avatarUrl,
          theme: page.theme,
          published: page.published ? 1 : 0,
          updated_at: page.updatedAt,
        })
        .where('id', '=', page.id)
        .where('org_id', '=', page.orgId)
        .execute();
    },

    /** The whole list in one UPDATE: readers see the old list or the new one, never a mix. */
    async replaceBlocks(
      ex: Executor,
      orgId: string,
      pageId: string,
      blocks: string,
      updatedAt: string,
    ): Promise<void> {
      await bio(ex)
        .updateTable('bio_pages')
        .set({ blocks, updated_at: updatedAt })
        .where('id', '=', pageId)
        .where('org_id', '=', orgId)
        .execute();
    },

    /**
     * The page and its kit go together (the caller's transaction holds both deletes); the links the
     * blocks pointed at are not touched.
     */
    async deletePage(ex: Executor, orgId: string, pageId: string): Promise<void> {
      const trx = bio(ex);
      await trx.deleteFrom('media_kits').where('page_id', '=', pageId).where('org_id', '=', orgId).execute();
      await trx.deleteFrom('bio_pages').where('id', '=', pageId).where('org_id', '=', orgId).execute();
    },

    /** Which of these ids are links of this organization (archived ones too: they still redirect). */
    async linkAddresses(orgId: string, ids: readonly string[]): Promise<Map<string, LinkAddress>> {
      if (ids.length === 0) return new Map();
      const rows = await db
        .selectFrom('links')
        .select(['id', 'host', 'slug'])
        .where('org_id', '=', orgId)
        .where('id', 'in', [...ids])
        .execute();
      return new Map(rows.map((row) => [row.id, row]));
    },

    /** Every link id of the organization, archived ones too: the media kit's top links are picked from them. */
    async linkIdsOfOrg(orgId: string): Promise<string[]> {
      const rows = await db.selectFrom('links').select('id').where('org_id', '=', orgId).execute();
      return rows.map((row) => row.id);
    },

    async kitOfPage(orgId: string, pageId: string): Promise<MediaKitRecord | undefined> {
      const row = await db
        .selectFrom('media_kits')
        .selectAll()
        .where('page_id', '=', pageId)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return row && toKit(row);
    },

    async saveKit(ex: Executor, orgId: string, kit: MediaKitRecord): Promise<void> {
      const values = { published: kit.published ? 1 : 0, show: kit.show, updated_at: kit.updatedAt };
      await bio(ex)
        .insertInto('media_kits')
        .values({ page_id: kit.pageId, org_id: orgId, created_at: kit.createdAt, ...values })
        .onConflict((oc) => oc.column('page_id').doUpdateSet(values))
        .execute();
    },

    async deleteKit(ex: Executor, orgId: string, pageId: string): Promise<void> {
      await bio(ex)
        .deleteFrom('media_kits')
        .where('page_id', '=', pageId)
        .where('org_id', '=', orgId)
        .execute();
    },
  };
}

export type BioRepo = ReturnType<typeof createBioRepo>;
