import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Executor, type Store, unitOfWork } from '../store/database.js';
import type { DmAutomationTable, DmFiringTable, SocialAccountTable } from '../store/migrations/009-social.js';

/**
 * The social domain's SQL: connected accounts, DM automation rules and their firings, and the one
 * organization read the intake needs. Writes that audit themselves take the caller's transaction as `ex`,
 * so the change and its audit row commit together.
 */

export type SocialAccountRow = Selectable<SocialAccountTable>;
export type RuleRow = Selectable<DmAutomationTable>;
export type FiringRow = Selectable<DmFiringTable>;
type AccountChanges = Updateable<SocialAccountTable>;

export function createSocialRepo(store: Store) {
  const { db } = store;

  return {
    transaction: unitOfWork(db),

    accountsOf(orgId: string): Promise<SocialAccountRow[]> {
      return db
        .selectFrom('social_accounts')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('connected_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },

    /** The one row of a provider account that is not revoked, whichever organization holds it. */
    liveAccount(providerUserId: string, ex: Executor = db): Promise<SocialAccountRow | undefined> {
      return ex
        .selectFrom('social_accounts')
        .selectAll()
        .where('provider_user_id', '=', providerUserId)
        .where('status', '<>', 'revoked')
        .executeTakeFirst();
    },

    /** The organization's latest row of that provider account, revoked or not. */
    latestOwnAccount(
      orgId: string,
      providerUserId: string,
      ex: Executor = db,
    ): Promise<SocialAccountRow | undefined> {
      return ex
        .selectFrom('social_accounts')
        .selectAll()
        .where('org_id', '=', orgId)
        .where('provider_user_id', '=', providerUserId)
        .orderBy('updated_at', 'desc')
        .executeTakeFirst();
    },

    accountById(id: string, ex: Executor = db): Promise<SocialAccountRow> {
      return ex.selectFrom('social_accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    },

    /** Id and status only: what a rule checks before it points at the account. */
    accountStatus(id: string, orgId: string) {
      return db
        .selectFrom('social_accounts')
        .select(['id', 'status'])
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
    },

    /** The active account the provider's delivery is addressed to. */
    activeAccountOf(providerUserId: string): Promise<SocialAccountRow | undefined> {
      return db
        .selectFrom('social_accounts')
        .selectAll()
        .where('provider_user_id', '=', providerUserId)
        .where('status', '=', 'active')
        .executeTakeFirst();
    },

    async insertAccount(row: Insertable<SocialAccountTable>, ex: Executor = db): Promise<void> {
      await ex.insertInto('social_accounts').values(row).execute();
    },

    async updateAccount(id: string, changes: AccountChanges, ex: Executor = db): Promise<void> {
      await ex.updateTable('social_accounts').set(changes).where('id', '=', id).execute();
    },

    /** The number of rows changed: 0 when the account is not the organization's. */
    async updateAccountOfOrg(
      id: string,
      orgId: string,
      changes: AccountChanges,
      ex: Executor = db,
    ): Promise<number> {
      const result = await ex
        .updateTable('social_accounts')
        .set(changes)
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },

    /** Only while still active: a disconnect that came first is not undone. */
    async updateActiveAccount(id: string, changes: AccountChanges): Promise<void> {
      await db
        .updateTable('social_accounts')
        .set(changes)
        .where('id', '=', id)
        .where('status', '=', 'active')
        .execute();
    },

    /** Live connections whose token expires by `horizon`, soonest first. */
    expiringAccounts(horizon: string) {
      return db
        .selectFrom('social_accounts')
        .select(['id', 'token_ciphertext', 'token_issued_at'])
        .where('status', '=', 'active')
        .where('expires_at', '<=', horizon)
        .orderBy('expires_at', 'asc')
        .execute();
    },

    /**
     * Claims the row for one refresh if it is still due and nobody else holds an unexpired claim: the
     * conditional UPDATE is what makes two instances sweeping at once safe. False when not claimed.
     */
    async claimRefresh(
      id: string,
      claim: { claim: string; until: string; horizon: string; oldEnough: string; now: string },
    ): Promise<boolean> {
      const claimed = await db
        .updateTable('social_accounts')
        .set({ refresh_claim: claim.claim, refresh_claimed_until: claim.until })
        .where('id', '=', id)
        .where('status', '=', 'active')
        .where('expires_at', '<=', claim.horizon)
        .where('token_issued_at', '<=', claim.oldEnough)
        .where((eb) =>
          eb.or([eb('refresh_claimed_until', 'is', null), eb('refresh_claimed_until', '<', claim.now)]),
        )
        .executeTakeFirst();
      return Number(claimed.numUpdatedRows) !== 0;
    },

    /** Writes only while our claim stands. */
    async updateClaimed(id: string, claim: string, changes: AccountChanges): Promise<void> {
      await db
        .updateTable('social_accounts')
        .where('id', '=', id)
        .where('refresh_claim', '=', claim)
        .set(changes)
        .execute();
    },

    organizationTier(orgId: string) {
      return db.selectFrom('organizations').select(['id', 'tier']).where('id', '=', orgId).executeTakeFirst();
    },

    ruleOf(orgId: string, id: string): Promise<RuleRow | undefined> {
      return db
        .selectFrom('dm_automations')
        .selectAll()
        .where('id', '=', id)
        .where('org_id', '=', orgId)
        .executeTakeFirst();
    },

    /** Oldest first. */
    rulesOf(orgId: string): Promise<RuleRow[]> {
      return db
        .selectFrom('dm_automations')
        .selectAll()
        .where('org_id', '=', orgId)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },

    /** The account's enabled rules, oldest first: the order in which they compete for an event. */
    enabledRulesOf(accountId: string): Promise<RuleRow[]> {
      return db
        .selectFrom('dm_automations')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('enabled', '=', 1)
        .orderBy('created_at', 'asc')
        .orderBy('id', 'asc')
        .execute();
    },

    /** The account's rules, leaving out `exceptId` (the rule being moved onto it). */
    async countRules(accountId: string, exceptId?: string): Promise<number> {
      let query = db
        .selectFrom('dm_automations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId);
      if (exceptId) query = query.where('id', '<>', exceptId);
      const { n } = await query.executeTakeFirstOrThrow();
      return Number(n);
    },

    async insertRule(row: Insertable<DmAutomationTable>, ex: Executor = db): Promise<void> {
      await ex.insertInto('dm_automations').values(row).execute();
    },

    async updateRule(id: string, changes: Updateable<DmAutomationTable>, ex: Executor = db): Promise<void> {
      await ex.updateTable('dm_automations').set(changes).where('id', '=', id).execute();
    },

    /** The firing history first, then the rule. */
    async deleteRule(orgId: string, id: string, ex: Executor = db): Promise<void> {
      await ex.deleteFrom('dm_firings').where('automation_id', '=', id).execute();
      await ex.deleteFrom('dm_automations').where('id', '=', id).where('org_id', '=', orgId).execute();
    },

    /** Newest first. */
    recentFirings(automationId: string, limit: number): Promise<FiringRow[]> {
      return db
        .selectFrom('dm_firings')
        .selectAll()
        .where('automation_id', '=', automationId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
    },

    /** Firings since `since` per status, with the distinct recipients of each. */
    firingCounts(automationId: string, since: string) {
      return db
        .selectFrom('dm_firings')
        .select(['status'])
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.count<number>('recipient_id').distinct().as('recipients'),
        ])
        .where('automation_id', '=', automationId)
        .where('created_at', '>=', since)
        .groupBy('status')
        .execute();
    },

    /** False when (rule, source) was already reserved: a redelivery. */
    async reserveFiring(row: Insertable<DmFiringTable>): Promise<boolean> {
      const reserved = await db
        .insertInto('dm_firings')
        .values(row)
        .onConflict((oc) => oc.columns(['automation_id', 'source_id']).doNothing())
        .executeTakeFirst();
      return Number(reserved.numInsertedOrUpdatedRows ?? 0) !== 0;
    },

    async updateFiring(id: string, changes: Updateable<DmFiringTable>): Promise<void> {
      await db.updateTable('dm_firings').set(changes).where('id', '=', id).execute();
    },
  };
}

export type SocialRepo = ReturnType<typeof createSocialRepo>;
