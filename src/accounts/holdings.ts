import type { AuditLog, AuditScope } from '../audit/service.js';
import type { Executor } from '../store/database.js';
import type { AccountRepo } from './repo.js';

/**
 * What a person held in an organization beyond their seat: the API keys they made (not the
 * organization's own) and the invites they sent, themselves or through one of their keys. Removing them,
 * their leaving, deleting their account, or their role dropping below admin ends all of it in the same
 * transaction (issue #30), with an audit row each. Keys and sessions are read from the store on every
 * call, so this takes effect on every instance at the next request; the /v1 check also refuses a key
 * whose maker no longer holds a key-holding seat, should any path forget this.
 */
export async function endHoldings(
  deps: { repo: AccountRepo; audit?: AuditLog },
  trx: Executor,
  ctx: AuditScope & { orgId: string },
  person: { userId: string; reason: string },
  now: string,
): Promise<void> {
  const { userId, reason } = person;
  const revoked = await deps.repo.keys.revokeKeysMadeBy(trx, ctx.orgId, userId, now);
  for (const key of revoked) {
    await deps.audit?.record(trx, ctx, {
      action: 'key.revoked',
      target: { type: 'key', id: key.id },
      changes: { revokedAt: { from: null, to: now }, reason },
    });
  }
  const senders = [userId, ...(await deps.repo.keys.keyIdsMadeBy(trx, ctx.orgId, userId))];
  const invites = await deps.repo.members.deleteInvitesSentBy(trx, ctx.orgId, senders);
  for (const invite of invites) {
    await deps.audit?.record(trx, ctx, {
      action: 'invite.revoked',
      target: { type: 'invite', id: invite.id },
      changes: { email: invite.email, reason },
    });
  }
}
