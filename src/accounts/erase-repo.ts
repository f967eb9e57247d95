import { type Executor, type Store, unitOfWork } from '../store/database.js';

/**
 * Every table that holds an organization's data by `org_id`, in an order that respects the foreign keys
 * between them (children first). Erasing an organization empties each; its links are kept apart (only
 * slug, hostname and destination survive) and so are its users (those who belong elsewhere stay).
 * test/accounts/account-deletion.test.ts fails when a table with an `org_id` column is missing here.
 */
export const ORG_TABLES = [
  'group_rollups',
  'link_group_versions',
  'link_group_history',
  'bulk_actions',
  'import_items',
  'imports',
  'audit_log',
  'invites',
  'memberships',
  'api_keys',
  'dm_firings',
  'dm_automations',
  'social_accounts',
  'broadcast_recipients',
  'broadcasts',
  'segments',
  'contacts',
  'tap_outcomes',
  'ab_tests',
  'health_digests',
  'click_rollups',
  'org_rollups',
  'click_blocks',
  'webhook_deliveries',
  'webhooks',
  'media_kits',
  'bio_pages',
  'pixels',
  'folders',
  'domains',
  'sso_identities',
  'sso_logins',
  'sso_configs',
] as const;

/**
 * Tables with an `org_id` that are not erased wholesale: links keep redirecting, users may belong
 * elsewhere, and a session pointing at the organization falls back to the person's next one.
 */
export const ORG_TABLES_KEPT = ['links', 'users', 'sessions'] as const;

/**
 * What the link row keeps: the columns a redirect needs, and its gates. Erasure never makes anything more
 * public (issue #30): a password-protected link keeps asking for its password (only its hash is kept),
 * an expiring one keeps its end date and where it goes after, and public stats stop. Every other power
 * is cleared.
 */
const CLEARED_LINK_POWERS = {
  utm: null,
  routing: null,
  ab: null,
  ab_started_at: null,
  ab_auto_promote: null,
  sched: null,
  folder_id: null,
  capture_emails: 0,
  read_only: 0,
  public_stats: 0,
} as const;

/** The erasing SQL of account and organization deletion (issue #20). */
export function createEraseRepo(store: Store) {
  const { db } = store;

  return {
    transaction: unitOfWork(db),

    /** Members who belong to no other organization: their accounts go with it. */
    async usersOnlyIn(ex: Executor, orgId: string): Promise<string[]> {
      const rows = await ex
        .selectFrom('memberships as m')
        .select('m.user_id')
        .where('m.org_id', '=', orgId)
        .where((eb) =>
          eb.not(
            eb.exists(
              eb
                .selectFrom('memberships as other')
                .select('other.user_id')
                .whereRef('other.user_id', '=', 'm.user_id')
                .where('other.org_id', '!=', orgId),
            ),
          ),
        )
        .execute();
      return rows.map((row) => row.user_id);
    },

    async deleteUsers(ex: Executor, userIds: string[]): Promise<void> {
      for (let i = 0; i < userIds.length; i += 500) {
        const ids = userIds.slice(i, i + 500);
        await ex.deleteFrom('memberships').where('user_id', 'in', ids).execute();
        await ex.deleteFrom('users').where('id', 'in', ids).execute();
      }
    },

    /** Users whose first organization this was, and who stay: they get another one of theirs. */
    async rehomeUsers(ex: Executor, orgId: string): Promise<void> {
      const rows = await ex
        .selectFrom('users')
        .innerJoin('memberships', 'memberships.user_id', 'users.id')
        .select(['users.id as userId', 'memberships.org_id as otherOrg'])
        .where('users.org_id', '=', orgId)
        .where('memberships.org_id', '!=', orgId)
        .execute();
      const seen = new Set<string>();
      for (const row of rows) {
        if (seen.has(row.userId)) continue;
        seen.add(row.userId);
        await ex.updateTable('users').set({ org_id: row.otherOrg }).where('id', '=', row.userId).execute();
      }
    },

    /** Everything but the links' slug, hostname and destination, and the organization's bare row. */
    async eraseOrganizationData(ex: Executor, orgId: string, now: string): Promise<void> {
      const links = ex.selectFrom('links').select('id').where('org_id', '=', orgId);
      await ex.deleteFrom('link_tags').where('link_id', 'in', links).execute();
      await ex.deleteFrom('link_pixels').where('link_id', 'in', links).execute();
      await ex.deleteFrom('link_previews').where('link_id', 'in', links).execute();
      await ex.updateTable('links').set(CLEARED_LINK_POWERS).where('org_id', '=', orgId).execute();
      // A bulk action's items hold no org_id of their own: they go with their action's.
      await ex
        .deleteFrom('bulk_action_items')
        .where('bulk_action_id', 'in', ex.selectFrom('bulk_actions').select('id').where('org_id', '=', orgId))
        .execute();
      for (const table of ORG_TABLES) {
        // The tables differ in shape; each has the org_id column this deletes by.
        await ex
          .deleteFrom(table as 'audit_log')
          .where('org_id', '=', orgId)
          .execute();
      }
      await ex
        .updateTable('organizations')
        .set({ name: '', deleted_at: now })
        .where('id', '=', orgId)
        .execute();
    },

    /** The operator's purge: the links and the organization's row too. */
    async purgeLinksAndOrganization(ex: Executor, orgId: string): Promise<number> {
      const result = await ex.deleteFrom('links').where('org_id', '=', orgId).executeTakeFirst();
      await ex.deleteFrom('organizations').where('id', '=', orgId).execute();
      return Number(result.numDeletedRows);
    },

    /** Hostname and slug of an organization's links, to drop them from the redirect caches. */
    async linkAddresses(orgId: string): Promise<{ host: string; slug: string }[]> {
      return db.selectFrom('links').select(['host', 'slug']).where('org_id', '=', orgId).execute();
    },
  };
}

export type EraseRepo = ReturnType<typeof createEraseRepo>;
