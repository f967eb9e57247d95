import { randomUUID } from 'node:crypto';
import type { AccountRepo } from '../accounts/repo.js';
import type { AuditLog } from '../audit/service.js';
import type { Config } from '../config.js';
import { createGuardedFetcher, type GuardedFetcher } from '../net/guarded-fetch.js';
import { createOidcClients } from '../sso/oidc.js';
import { createSsoRepo } from '../sso/repo.js';
import { createSsoSettings } from '../sso/settings.js';
import { createSsoSignIn } from '../sso/sign-in.js';
import type { Store } from '../store/database.js';
import type { SecretBox } from '../webhooks/secret-box.js';

export interface SsoDeps {
  config: Pick<Config, 'baseUrl' | 'allowPrivateSsoIssuers'>;
  store: Store;
  accounts: AccountRepo;
  openSession: (userId: string, orgId: string) => Promise<string>;
  secretBox: SecretBox;
  audit: AuditLog;
  clock: () => number;
  now: () => Date;
  /** Instead of one on the system's DNS (tests). */
  fetcher?: GuardedFetcher;
}

/**
 * Single sign-on (issue #34): per-organization OpenID providers. Its outbound calls (discovery, keys, the
 * token exchange) go through an SSRF guard of their own, open to private addresses only with
 * SSO_ALLOW_PRIVATE_ISSUERS=1, which also admits plain http issuers.
 */
export function composeSso(deps: SsoDeps) {
  const allowInsecure = deps.config.allowPrivateSsoIssuers;
  const fetcher = deps.fetcher ?? createGuardedFetcher({ allowPrivate: allowInsecure, timeoutMs: 10_000 });
  const repo = createSsoRepo(deps.store);
  const oidc = createOidcClients({ fetcher, allowInsecure, clock: deps.clock });
  const redirectUri = `${deps.config.baseUrl.replace(/\/$/, '')}/api/sso/callback`;
  const shared = { repo, secretBox: deps.secretBox, oidc, audit: deps.audit, now: deps.now, redirectUri };
  return {
    settings: createSsoSettings({ ...shared, allowInsecure }),
    signIn: createSsoSignIn({
      ...shared,
      accounts: deps.accounts,
      openSession: deps.openSession,
      uuid: randomUUID,
    }),
    close: () => fetcher.close(),
  };
}

export type Sso = ReturnType<typeof composeSso>;

/** For the password log-in, made before the accounts it guards: whether this person must use SSO instead. */
export function ssoPasswordRefusal(store: Store): (userId: string) => Promise<boolean> {
  const repo = createSsoRepo(store);
  return (userId) => repo.passwordRefused(userId);
}
