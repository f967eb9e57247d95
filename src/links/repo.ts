import { type ExpressionBuilder, sql, type Transaction } from 'kysely';
import { DAY_MS } from '../analytics/model.js';
import { groupsOf, lockGroups, moveLinkGroups } from '../analytics/write/group-repo.js';
import { type Store, unitOfWork } from '../store/database.js';
import type { Database } from '../store/schema.js';
import { expiredSql } from './expiry-repo.js';
import { attach, type LinkRecord, type RedirectRecord, toColumns, writeAssignments } from './rows-repo.js';
import type { LinkListFilter } from './schema.js';

export type { LinkRecord, RedirectRecord } from './rows-repo.js';

/**
 * The folder and tag groups the link is in before an update, read under the organization's group lock
 * (PostgreSQL), so the click writer cannot add to a group between this read and the rollup move.
 */
async function groupsBefore(
  trx: Transaction<Database>,
  dialect: string,
  link: LinkRecord,
): Promise<string[]> {
  if (dialect === 'postgres') await lockGroups(trx, [link.orgId], 'exclusive');
  const row = await trx
    .selectFrom('links')
    .select('folder_id')
    .where('id', '=', link.id)
    .where('org_id', '=', link.orgId)
    .executeTakeFirst();
  const tags = await trx.selectFrom('link_tags').select('tag').where('link_id', '=', link.id).execute();
  return groupsOf(row?.folder_id ?? null, row ? tags.map((t) => t.tag) : []);
}

/**
 * The counter and the claim are written by visits and the sweep, never from a record read earlier (a
 * click between the read and the write would be lost). An edit only clears them: the count when the limit
 * is cleared, the claim when the new values leave the link unexpired, decided in SQL on the current count.
 */
function expiryBookkeeping(link: LinkRecord) {
  const count = link.maxClicks === null ? { click_count: 0 } : {};
  // Still expired by its end date: the claim stands.
  if (link.expiresAt !== null && link.expiresAt <= link.updatedAt) return count;
  if (link.maxClicks === null) return { ...count, expired_at: null };
  return {
    expired_at: sql<string | null>`case when click_count >= ${link.maxClicks} then expired_at else null end`,
  };
}

/**
 * Every query takes the organization: no caller can forget the tenant. Writes take the service's
 * transaction (`transaction`, the unit of work it opens) and do only their SQL.
 */
export function createLinkRepo(store: Store) {
  const { db } = store;
  return {
    transaction: unitOfWork(db),

    /** The link and its tags and pixels; throws a unique violation when (host, slug) is taken. */
    async insert(trx: Transaction<Database>, link: LinkRecord): Promise<void> {
      await trx.insertInto('links').values(toColumns(link)).execute();
      await writeAssignments(trx, link);
    },

    /**
     * Writes the whole record back, and moves its clicks between the folder and tag rollups it left and
     * joined; throws a unique violation when (host, slug) is taken.
     */
    async update(trx: Transaction<Database>, link: LinkRecord): Promise<void> {
      const before = await groupsBefore(trx, store.dialect, link);
      const { id, org_id, created_at, ...columns } = toColumns(link);
      await trx
        .updateTable('links')
        .set({ ...columns, ...expiryBookkeeping(link) })
        .where('id', '=', id)
        .where('org_id', '=', org_id)
        .execute();
      await writeAssignments(trx, link);
      const after = groupsOf(link.folderId, link.tags);
      await moveLinkGroups(trx, {
        orgId: link.orgId,
        linkId: link.id,
        from: before,
        to: after,
        day: Math.floor(Date.parse(link.updatedAt) / DAY_MS),
      });
    },

    async find(orgId: string, id: string): Promise<LinkRecord | undefined> {
      const row = await db
        .selectFrom('links')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row ? (await attach(db, [row]))[0] : undefined;
    },

    /**
     * Live (or, with `archived`, archived) links, newest first; all of them when no page is asked for.
     * `q`, `tag`, `folderId` and `expired` narrow the list in SQL before the page is cut, so pages stay
     * consistent.
     */
    async list(orgId: string, page: LinkListFilter & { now: string }): Promise<LinkRecord[]> {
      let query = db
        .selectFrom('links')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('archived_at', page.archived ? 'is not' : 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc');
      if (page.expired !== undefined) {
        const expired = expiredSql(page.now);
        query = query.where(page.expired ? expired : sql<boolean>`not ${expired}`);
      }
      if (page.q) {
        // LIKE with its wildcards escaped, both sides lower-cased: the same answer on SQLite and PostgreSQL.
        const pattern = `%${page.q.toLowerCase().replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
        query = query.where((eb) =>
          eb.or([
            sql<boolean>`lower(${eb.ref('slug')}) like ${pattern} escape '\\'`,
            sql<boolean>`lower(${eb.ref('destination')}) like ${pattern} escape '\\'`,
          ]),
        );
      }
      if (page.tag) {
        const tag = page.tag;
        query = query.where('id', 'in', (eb) =>
          eb.selectFrom('link_tags').select('link_tags.link_id').where('link_tags.tag', '=', tag),
        );
      }
      if (page.folderId) query = query.where('folder_id', '=', page.folderId);
      if (page.health) {
        // Destination health: `unknown` is every link whose destination was never found ok or down.
        const known = page.health === 'unknown' ? ['ok', 'down'] : [page.health];
        const inState = (eb: ExpressionBuilder<Database, 'links'>) =>
          eb.selectFrom('destinations').select('destinations.id').where('destinations.state', 'in', known);
        query =
          page.health === 'unknown'
            ? query.where((eb) =>
                eb.or([eb('destination_key', 'is', null), eb('destination_key', 'not in', inState(eb))]),
              )
            : query.where('destination_key', 'in', inState);
      }
      if (page.limit !== undefined) query = query.limit(page.limit);
      if (page.offset !== undefined) query = query.offset(page.offset).limit(page.limit ?? 1_000_000_000);
      return attach(db, await query.execute());
    },

    async countLive(orgId: string): Promise<number> {
      const row = await db
        .selectFrom('links')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('org_id', '=', orgId)
        .where('archived_at', 'is', null)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async folderExists(orgId: string, folderId: string): Promise<boolean> {
      const row = await db
        .selectFrom('folders')
        .select('id')
        .where('org_id', '=', orgId)
        .where('id', '=', folderId)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The ids among `pixelIds` that the organization does not own. */
    async missingPixels(orgId: string, pixelIds: string[]): Promise<string[]> {
      if (pixelIds.length === 0) return [];
      const rows = await db
        .selectFrom('pixels')
        .select('id')
        .where('org_id', '=', orgId)
        .where('id', 'in', pixelIds)
        .execute();
      const owned = new Set(rows.map((row) => row.id));
      return pixelIds.filter((id) => !owned.has(id));
    },

    /** Every custom hostname links use, archived ones too: the redirect must keep answering on each. */
    async hostsInUse(): Promise<string[]> {
      const rows = await db.selectFrom('links').select('host').distinct().where('host', '!=', '').execute();
      return rows.map((row) => row.host);
    },

    /** True when `host` is a verified domain of the organization: the only hostnames its links may use. */
    async ownsVerifiedDomain(orgId: string, host: string): Promise<boolean> {
      const row = await db
        .selectFrom('domains')
        .select('id')
        .where('org_id', '=', orgId)
        .where('hostname', '=', host)
        .where('verified_at', 'is not', null)
        .executeTakeFirst();
      return row !== undefined;
    },

    /** The link served at (host, slug), archived or not, with its organization's tier. */
    async findForRedirect(host: string, slug: string): Promise<RedirectRecord | undefined> {
      const row = await db
        .selectFrom('links')
        .innerJoin('organizations', 'organizations.id', 'links.org_id')
        .selectAll('links')
        .select([
          'organizations.tier as tier',
          'organizations.name as org_name',
          'organizations.deleted_at as org_deleted_at',
        ])
        .where('links.host', '=', host)
        .where('links.slug', '=', slug)
        .executeTakeFirst();
      if (!row) return undefined;
      const { tier, org_name: orgName, org_deleted_at: orgDeletedAt, ...link } = row;
      const [record] = await attach(db, [link], { health: link.fallback_url !== null });
      if (!record) return undefined;
      const pixels = await db
        .selectFrom('link_pixels')
        .innerJoin('pixels', 'pixels.id', 'link_pixels.pixel_id')
        .select(['pixels.type', 'pixels.pixel_id'])
        .where('link_pixels.link_id', '=', record.id)
        .orderBy('link_pixels.position')
        .execute();
      const previewRow = await db
        .selectFrom('link_previews')
        .selectAll()
        .where('link_id', '=', record.id)
        .executeTakeFirst();
      const shown = previewRow && (previewRow.source === 'custom' ? previewRow.custom : previewRow.scraped);
      return {
        ...record,
        tier,
        orgName,
        orgDeletedAt,
        preview: shown ? (JSON.parse(shown) as RedirectRecord['preview']) : null,
        pixels: pixels.map((pixel) => ({
          type: pixel.type as 'meta' | 'tiktok' | 'gtm',
          pixelId: pixel.pixel_id,
        })),
      };
    },
  };
}

export type LinkRepo = ReturnType<typeof createLinkRepo>;
