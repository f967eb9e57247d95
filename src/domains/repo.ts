import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { DomainTable } from '../store/migrations/014-domains.js';

/** The custom domains' SQL. Org-scoped queries take org_id; the rest look across organizations on purpose. */
export function createDomainRepo(store: Store) {
  const { db } = store;
  return {
    /** One transaction: a domain write and its audit row commit together. */
    transaction: unitOfWork(db),

    async find(orgId: string, id: string): Promise<DomainTable | undefined> {
      return db
        .selectFrom('domains')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('id', '=', id)
        .executeTakeFirst();
    },

    /** True when an organization other than `orgId` has verified `hostname`. */
    async verifiedElsewhere(orgId: string, hostname: string): Promise<boolean> {
      const row = await db
        .selectFrom('domains')
        .select('id')
        .where('hostname', '=', hostname)
        .where('verified_at', 'is not', null)
        .where('org_id', '!=', orgId)
        .executeTakeFirst();
      return row !== undefined;
    },

    async insert(ex: Executor, row: DomainTable): Promise<void> {
      await ex.insertInto('domains').values(row).execute();
    },

    /** Oldest first, then by name. */
    async list(orgId: string): Promise<DomainTable[]> {
      return db
        .selectFrom('domains')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at')
        .orderBy('hostname')
        .execute();
    },

    async markVerified(ex: Executor, orgId: string, id: string, verifiedAt: string): Promise<void> {
      await ex
        .updateTable('domains')
        .set({ verified_at: verifiedAt })
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .execute();
    },

    /** Links on `hostname` in any organization, archived ones too. */
    async linksOnHost(hostname: string): Promise<number> {
      const used = await db
        .selectFrom('links')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('host', '=', hostname)
        .executeTakeFirstOrThrow();
      return Number(used.count);
    },

    async delete(ex: Executor, orgId: string, id: string): Promise<void> {
      await ex.deleteFrom('domains').where('id', '=', id).where('org_id', '=', orgId).execute();
    },

    /** Every verified hostname, of every organization. */
    async verifiedHostnames(): Promise<string[]> {
      const rows = await db
        .selectFrom('domains')
        .select('hostname')
        .where('verified_at', 'is not', null)
        .execute();
      return rows.map((row) => row.hostname);
    },
  };
}

export type DomainRepo = ReturnType<typeof createDomainRepo>;
