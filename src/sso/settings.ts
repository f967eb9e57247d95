import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import { isUniqueViolation } from '../store/database.js';
import type { OrgContext } from '../tenancy/context.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import type { OidcClients } from './oidc.js';
import type { SsoConfigRow, SsoRepo } from './repo.js';
import type { SsoConfigInput } from './schema.js';

export interface SsoSettingsDeps {
  repo: SsoRepo;
  secretBox: SecretBox;
  oidc: OidcClients;
  audit?: AuditLog;
  now: () => Date;
  /** Where the provider sends people back: `${BASE_URL}/api/sso/callback`. */
  redirectUri: string;
  /** SSO_ALLOW_PRIVATE_ISSUERS: plain http issuers are accepted too. */
  allowInsecure: boolean;
}

/** The secret box binds each sealed client secret to its organization: a box copied to another row fails. */
export const secretContext = (orgId: string) => `sso:${orgId}`;

const noConfig = () => appError('not_found', 'This organization has no single sign-on configured');

/** An organization's identity provider as its owners read and change it (the secret never comes back). */
export function createSsoSettings(deps: SsoSettingsDeps) {
  const { repo } = deps;

  const present = (row: SsoConfigRow) => ({
    issuer: row.issuer,
    clientId: row.clientId,
    hasSecret: row.clientSecretBox !== '',
    allowedDomain: row.allowedDomain,
    defaultRole: row.defaultRole as 'admin' | 'member' | 'viewer',
    requireSso: row.requireSso,
    displayName: row.displayName,
    redirectUri: deps.redirectUri,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  });

  /** Discovery must answer for the issuer as typed, through the SSRF guard: a typo fails at save, not at sign-in. */
  async function checkIssuer(issuer: string, clientId: string, clientSecret: string): Promise<void> {
    if (!deps.allowInsecure && !issuer.startsWith('https://'))
      throw appError('invalid_body', 'issuer: an https URL is required');
    try {
      await deps.oidc.check({ issuer, clientId, clientSecret });
    } catch (error) {
      const why = error instanceof Error ? error.message : 'no answer';
      throw appError('invalid_body', `issuer: no OpenID provider answers there (${why})`);
    }
  }

  return {
    async get(ctx: OrgContext) {
      const row = await repo.findConfig(ctx.orgId);
      if (!row) throw noConfig();
      return present(row);
    },

    async put(ctx: OrgContext, input: SsoConfigInput) {
      const before = await repo.findConfig(ctx.orgId);
      const issuer = input.issuer.trim();
      let clientSecret = input.clientSecret;
      if (clientSecret === undefined && before)
        clientSecret = deps.secretBox.decrypt(before.clientSecretBox, secretContext(ctx.orgId));
      if (clientSecret === undefined)
        throw appError('invalid_body', 'clientSecret: required when single sign-on is first configured');
      await checkIssuer(issuer, input.clientId, clientSecret);
      const at = deps.now().toISOString();
      const row: SsoConfigRow = {
        orgId: ctx.orgId,
        issuer,
        clientId: input.clientId,
        clientSecretBox: deps.secretBox.encrypt(clientSecret, secretContext(ctx.orgId)),
        allowedDomain: input.allowedDomain,
        defaultRole: input.defaultRole,
        requireSso: input.requireSso,
        displayName: input.displayName,
        createdAt: before?.createdAt ?? at,
        updatedAt: at,
      };
      try {
        await repo.transaction(async (trx) => {
          await repo.upsertConfig(row, trx);
          await deps.audit?.record(trx, ctx, {
            action: 'sso.configured',
            target: { type: 'organization', id: ctx.orgId },
            // Never the secret: only that it changed.
            changes: {
              issuer: row.issuer,
              clientId: row.clientId,
              allowedDomain: row.allowedDomain,
              defaultRole: row.defaultRole,
              requireSso: row.requireSso,
              displayName: row.displayName,
              secretChanged: input.clientSecret !== undefined,
            },
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw appError('sso_domain_taken');
        throw error;
      }
      return present(row);
    },

    async remove(ctx: OrgContext): Promise<void> {
      await repo.transaction(async (trx) => {
        if (!(await repo.deleteConfig(ctx.orgId, trx))) throw noConfig();
        await deps.audit?.record(trx, ctx, {
          action: 'sso.removed',
          target: { type: 'organization', id: ctx.orgId },
          changes: {},
        });
      });
    },
  };
}

export type SsoSettings = ReturnType<typeof createSsoSettings>;
