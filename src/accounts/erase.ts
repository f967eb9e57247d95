import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { Executor } from '../store/database.js';
import type { SessionContext } from '../tenancy/context.js';
import type { EraseRepo } from './erase-repo.js';
import { endHoldings } from './holdings.js';
import { wrongCurrentPassword } from './passwords.js';
import type { AccountRepo } from './repo.js';
import { verifyPassword } from './secrets.js';

export interface EraseDeps {
  repo: EraseRepo;
  accounts: AccountRepo;
  audit?: AuditLog;
  now: () => Date;
  /** Drops the organization's compiled links from every instance's cache (pixels, powers are gone). */
  invalidateOrganization?: (orgId: string) => Promise<void> | void;
}

/**
 * Deleting an account, and with its last owner an organization (issue #20). Permanence first: of each
 * link only slug, hostname and destination are kept, so every published link keeps redirecting; all
 * else (users who belong nowhere else, keys, audience, analytics, pages, automations, webhooks, the audit
 * log) is erased in one transaction. Only the operator's `linkhop org purge` removes the links too.
 */
export function createEraseService(deps: EraseDeps) {
  const { repo } = deps;
  const iso = () => deps.now().toISOString();

  async function eraseIn(trx: Executor, orgId: string): Promise<void> {
    await repo.deleteUsers(trx, await repo.usersOnlyIn(trx, orgId));
    await repo.rehomeUsers(trx, orgId);
    await repo.eraseOrganizationData(trx, orgId, iso());
  }

  async function afterErase(orgIds: string[]): Promise<void> {
    for (const orgId of orgIds) await deps.invalidateOrganization?.(orgId);
  }

  return {
    /**
     * Deletes the session's person. Organizations where they are the last owner go with them; in the
     * others they just leave (an audit row says so). Answers the ids of the organizations deleted.
     */
    async deleteAccount(
      session: SessionContext,
      currentPassword: string,
    ): Promise<{ deletedOrganizations: string[] }> {
      const user = await deps.accounts.findUserById(session.user.id);
      if (!user || !(await verifyPassword(currentPassword, user.passwordHash))) throw wrongCurrentPassword();
      const orgs = await deps.accounts.members.organizationsOf(user.id);
      const doomed: string[] = [];
      for (const org of orgs) {
        if (org.role !== 'owner') continue;
        const members = await deps.accounts.members.listMembers(org.orgId);
        if (members.filter((member) => member.role === 'owner').length === 1) doomed.push(org.orgId);
      }
      await repo.transaction(async (trx) => {
        for (const orgId of doomed) await eraseIn(trx, orgId);
        for (const org of orgs.filter((candidate) => !doomed.includes(candidate.orgId))) {
          const ctx = { orgId: org.orgId, actor: { type: 'user' as const, id: user.id, label: user.email } };
          await deps.audit?.record(trx, ctx, {
            action: 'member.left',
            target: { type: 'member', id: user.id },
            changes: { email: user.email, role: { from: org.role, to: null } },
          });
          await endHoldings(
            { repo: deps.accounts, audit: deps.audit },
            trx,
            ctx,
            { userId: user.id, reason: 'account deleted' },
            iso(),
          );
        }
        await repo.deleteUsers(trx, [user.id]);
      });
      await afterErase(doomed);
      return { deletedOrganizations: doomed };
    },

    /** `linkhop org purge`: erases the organization and then its links and its row. */
    async purgeOrganization(orgId: string): Promise<{ orgId: string; linksDeleted: number }> {
      const org = await deps.accounts.findOrganization(orgId);
      if (!org) throw appError('not_found', `No organization ${orgId}`);
      const linksDeleted = await repo.transaction(async (trx) => {
        await eraseIn(trx, orgId);
        return repo.purgeLinksAndOrganization(trx, orgId);
      });
      await afterErase([orgId]);
      return { orgId, linksDeleted };
    },
  };
}

export type EraseService = ReturnType<typeof createEraseService>;
