import type { ExpressionBuilder } from 'kysely';
import { type AudienceDb, audienceDb, audienceView } from '../audience/repo.js';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { SegmentTable } from '../store/migrations/011-audience.js';

/**
 * A segment's filter as the SQL reads it: segments.ts's SegmentFilter once validated. Declared here, not
 * imported, so the repo does not import the module that imports it.
 */
export interface ContactFilter {
  sourceSlug?: string | undefined;
  country?: string | undefined;
  capturedFrom?: string | undefined;
  capturedTo?: string | undefined;
}

const DAY_MS = 86_400_000;
const startOf = (value: string) =>
  value.length === 10 ? `${value}T00:00:00.000Z` : new Date(value).toISOString();

/** The filter as a WHERE condition on `contacts`; stored timestamps are ISO UTC, so they compare as text. */
export function matchesFilter(filter: ContactFilter) {
  return (eb: ExpressionBuilder<AudienceDb, 'contacts'>) => {
    const parts = [];
    if (filter.sourceSlug !== undefined) parts.push(eb('contacts.source_slug', '=', filter.sourceSlug));
    if (filter.country !== undefined) parts.push(eb('contacts.country', '=', filter.country));
    if (filter.capturedFrom !== undefined)
      parts.push(eb('contacts.created_at', '>=', startOf(filter.capturedFrom)));
    if (filter.capturedTo !== undefined) {
      const to = filter.capturedTo;
      parts.push(
        to.length === 10
          ? eb('contacts.created_at', '<', new Date(Date.parse(startOf(to)) + DAY_MS).toISOString())
          : eb('contacts.created_at', '<=', startOf(to)),
      );
    }
    return eb.and(parts);
  };
}

/** The saved segments' SQL; every query takes the organization. */
export function createSegmentRepo(store: Store) {
  const db = audienceDb(store);
  return {
    /** One transaction: a segment write and its audit row commit together. */
    transaction: unitOfWork(store.db),

    /** How many of the organization's contacts match `filter` now. */
    async countMatching(orgId: string, filter: ContactFilter): Promise<number> {
      const row = await db
        .selectFrom('contacts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('contacts.org_id', '=', orgId)
        .where(matchesFilter(filter))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async insert(ex: Executor, row: SegmentTable): Promise<void> {
      await audienceView(ex).insertInto('segments').values(row).execute();
    },

    /** Oldest first. */
    async list(orgId: string): Promise<SegmentTable[]> {
      return db
        .selectFrom('segments')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },

    /** The stored filter (JSON text) of one of the organization's segments. */
    async filterText(orgId: string, id: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('segments')
        .select('filter')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row?.filter;
    },

    /** The deleted segment's name, or undefined when the organization has no such segment. */
    async delete(ex: Executor, orgId: string, id: string): Promise<{ name: string } | undefined> {
      return audienceView(ex)
        .deleteFrom('segments')
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .returning(['name'])
        .executeTakeFirst();
    },
  };
}

export type SegmentRepo = ReturnType<typeof createSegmentRepo>;
