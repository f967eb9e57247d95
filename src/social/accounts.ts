import { AppError } from '../errors.js';
import type { SocialAccountTable } from '../store/migrations/009-social.js';
import type { OrgContext } from '../tenancy/context.js';
import {
  isUniqueViolation,
  notFound,
  provisioned,
  redirectUriOf,
  requireProvisioned,
  requireWrite,
  type SocialDeps,
  stateFor,
  stateMatches,
} from './deps.js';
import { ProviderError } from './provider.js';
import { createSocialRepo } from './repo.js';

/** Connected social accounts: meta, connect (code -> short token -> long token -> profile), list, disconnect. */

export interface SocialAccount {
  id: string;
  provider: 'instagram';
  providerUserId: string;
  username: string;
  status: SocialAccountTable['status'];
  statusMessage: string | null;
  connectedAt: string;
  expiresAt: string;
}

export function presentAccount(row: SocialAccountTable): SocialAccount {
  return {
    id: row.id,
    provider: 'instagram',
    providerUserId: row.provider_user_id,
    username: row.username,
    status: row.status,
    statusMessage: row.status_message,
    connectedAt: row.connected_at,
    expiresAt: row.expires_at,
  };
}

const DEFAULT_LIFETIME_S = 60 * 86_400;

export function createSocialAccountService(deps: SocialDeps) {
  const repo = createSocialRepo(deps.store);

  return {
    meta(ctx: OrgContext) {
      const ready = provisioned(deps);
      const allowed = ctx.features.dmAutomations && !deps.flagsOff.has('dmAutomations');
      return {
        appConfigured: ready !== null,
        appMode: deps.social.appMode,
        authUrl:
          ready && allowed
            ? ready.provider.authorizeUrl(redirectUriOf(deps), stateFor(deps.stateSecret, ctx.orgId))
            : null,
      };
    },

    async list(ctx: OrgContext): Promise<SocialAccount[]> {
      const rows = await repo.accountsOf(ctx.orgId);
      return rows.map(presentAccount);
    },

    /** Every provider call happens before the single write, so a failure anywhere writes nothing. */
    async connect(ctx: OrgContext, body: { code?: string | undefined; state?: string | undefined }) {
      requireWrite(deps, ctx);
      const { provider, vault } = requireProvisioned(deps);
      const code = body.code?.trim();
      if (!code) throw new AppError('missing_code', 400, 'The authorization code is required');
      if (!body.state || !stateMatches(deps.stateSecret, ctx.orgId, body.state)) {
        throw new AppError('invalid_state', 403, 'The state does not belong to this organization');
      }
      let grant: { accessToken: string; expiresIn: number };
      let profile: { userId: string; username: string };
      try {
        const short = await provider.exchangeCode(code, redirectUriOf(deps));
        grant = await provider.longLived(short.accessToken);
        profile = await provider.profile(grant.accessToken);
        await provider.subscribe(grant.accessToken);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        // Status and numeric code only: the provider's wording never reaches the client.
        throw new AppError('provider_error', 502, error.message, {
          providerStatus: error.status,
          providerCode: error.code,
        });
      }
      const now = deps.now();
      const iso = now.toISOString();
      const expiresAt = new Date(
        now.getTime() + (grant.expiresIn || DEFAULT_LIFETIME_S) * 1000,
      ).toISOString();
      const taken = () =>
        new AppError(
          'social_account_taken',
          409,
          'This Instagram account is connected to another organization',
        );
      try {
        return await repo.transaction(async (trx) => {
          const live = await repo.liveAccount(profile.userId, trx);
          if (live && live.org_id !== ctx.orgId) throw taken();
          // Revive the organization's earlier row (revoked or not) so its automations and history return.
          const own = live ?? (await repo.latestOwnAccount(ctx.orgId, profile.userId, trx));
          const id = own?.id ?? deps.uuid();
          const fields = {
            username: profile.username,
            token_ciphertext: vault.seal(grant.accessToken, id),
            status: 'active' as const,
            status_message: null,
            expires_at: expiresAt,
            token_issued_at: iso,
            connected_at: iso,
            refresh_claim: null,
            refresh_claimed_until: null,
            updated_at: iso,
          };
          if (own) {
            await repo.updateAccount(id, fields, trx);
          } else {
            await repo.insertAccount(
              { id, org_id: ctx.orgId, provider: 'instagram', provider_user_id: profile.userId, ...fields },
              trx,
            );
          }
          const row = await repo.accountById(id, trx);
          await deps.audit?.record(trx, ctx, {
            action: 'social.connected',
            target: { type: 'social_account', id },
            // The username only: the token is sealed and never leaves the vault.
            changes: {
              provider: 'instagram',
              username: { from: own?.username ?? null, to: profile.username },
            },
          });
          return presentAccount(row);
        });
      } catch (error) {
        // Two organizations racing for one account: the partial unique index lets only one win.
        if (isUniqueViolation(error)) throw taken();
        throw error;
      }
    },

    /** Any tier: the token is emptied; automations and their history stay for a later reconnect. */
    async disconnect(ctx: OrgContext, id: string): Promise<{ deleted: true }> {
      await repo.transaction(async (trx) => {
        const updated = await repo.updateAccountOfOrg(
          id,
          ctx.orgId,
          {
            status: 'revoked',
            status_message: 'Disconnected. Connect Instagram again to resume DMs.',
            token_ciphertext: '',
            refresh_claim: null,
            refresh_claimed_until: null,
            updated_at: deps.now().toISOString(),
          },
          trx,
        );
        if (updated === 0) throw notFound('social account');
        await deps.audit?.record(trx, ctx, {
          action: 'social.disconnected',
          target: { type: 'social_account', id },
        });
      });
      return { deleted: true };
    },
  };
}

export type SocialAccountService = ReturnType<typeof createSocialAccountService>;
