import { timingSafeEqual } from 'node:crypto';
import * as client from 'openid-client';
import type { AccountRepo } from '../accounts/repo.js';
import { hashPassword, randomToken, sha256Hex } from '../accounts/secrets.js';
import type { AuditLog } from '../audit/service.js';
import { appError } from '../errors.js';
import type { SecretBox } from '../webhooks/secret-box.js';
import type { OidcClients } from './oidc.js';
import type { SsoConfigRow, SsoRepo } from './repo.js';
import { secretContext } from './settings.js';

/** How long a sign-in may take at the provider before its state is refused. */
export const SSO_LOGIN_MINUTES = 10;

export interface SsoSignInDeps {
  repo: SsoRepo;
  accounts: AccountRepo;
  openSession: (userId: string, orgId: string) => Promise<string>;
  secretBox: SecretBox;
  oidc: OidcClients;
  audit?: AuditLog;
  now: () => Date;
  uuid: () => string;
  redirectUri: string;
}

/**
 * Every refusal names its `reason` too: the callback sends a browser back to the log-in page with that
 * word only, and the page says it in its own text (a message in the URL would be anyone's to write).
 */
const failed = (reason: string, message: string) => appError('sso_failed', message, { reason });
const refused = (reason: string, message: string) => appError('sso_refused', message, { reason });

/** The identity the provider vouched for, once every check of OpenID Connect Core passed. */
interface Identity {
  issuer: string;
  subject: string;
  email: string;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What the provider or openid-client said, as much as is safe to show: an OAuth error code or the check that failed. */
function providerFailure(error: unknown) {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError)
    return failed('provider', `The identity provider refused the sign-in (${error.error}); start it again`);
  // openid-client wraps oauth4webapi's error, which names the check (the aud claim, the nonce...).
  const cause = error instanceof Error ? error.cause : undefined;
  const why = cause instanceof Error ? cause.message : error instanceof Error ? error.message : 'no answer';
  return failed('provider', `The identity provider’s answer failed a check: ${why}`);
}

/**
 * The authorization code flow with PKCE, `state` and `nonce` (OpenID Connect Core §3.1), for the
 * organization whose provider a person signs in with; then who that person is here: a linked identity,
 * an account with the same verified email, or a new account joining with the owner's default role.
 */
export function createSsoSignIn(deps: SsoSignInDeps) {
  const { repo, accounts } = deps;
  const iso = () => deps.now().toISOString();

  async function configOf(orgId: string): Promise<SsoConfigRow> {
    const config = await repo.findConfig(orgId);
    if (!config) throw appError('not_found', 'This organization has no single sign-on configured');
    return config;
  }

  async function providerOf(config: SsoConfigRow): Promise<client.Configuration> {
    const clientSecret = deps.secretBox.decrypt(config.clientSecretBox, secretContext(config.orgId));
    try {
      return await deps.oidc.configuration({
        issuer: config.issuer,
        clientId: config.clientId,
        clientSecret,
      });
    } catch (error) {
      throw providerFailure(error);
    }
  }

  /** The email the provider vouches for: from the ID token, else from UserInfo for the same `sub` (§5.3.2). */
  async function identityOf(
    provider: client.Configuration,
    tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>,
  ): Promise<Identity> {
    const claims = tokens.claims();
    if (!claims) throw failed('provider', 'The identity provider sent no ID token');
    let profile: Record<string, unknown> = claims;
    if (claims.email === undefined && provider.serverMetadata().userinfo_endpoint) {
      try {
        profile = { ...(await client.fetchUserInfo(provider, tokens.access_token, claims.sub)) };
      } catch (error) {
        throw providerFailure(error);
      }
    }
    const email = typeof profile.email === 'string' ? profile.email.trim().toLowerCase() : '';
    if (!email)
      throw refused('no_email', 'The identity provider shared no email address (the `email` scope)');
    // Only a boolean true counts (§5.1): an unverified address proves nothing about who holds it.
    if (profile.email_verified !== true)
      throw refused('unverified', 'The identity provider has not verified this email address');
    return { issuer: claims.iss, subject: claims.sub, email };
  }

  /** Joins the organization with its default role, making the account first if there is none. */
  async function join(config: SsoConfigRow, identity: Identity, userId: string | undefined) {
    const id = userId ?? deps.uuid();
    const createdAt = iso();
    const role = config.defaultRole;
    // A password nobody knows, under scrypt like any other: a password log-in costs the same and fails.
    const passwordHash = userId ? '' : await hashPassword(randomToken());
    await accounts.members.transaction(async (trx) => {
      const member = { userId: id, orgId: config.orgId, role, createdAt };
      if (userId) await accounts.members.insertMembership(trx, member);
      else
        await accounts.insertUser(
          { id, orgId: config.orgId, email: identity.email, passwordHash, createdAt, role },
          trx,
        );
      await repo.insertIdentity({ ...identity, userId: id, orgId: config.orgId, createdAt }, trx);
      await deps.audit?.record(
        trx,
        { orgId: config.orgId, actor: { type: 'user', id, label: identity.email } },
        {
          action: 'member.joined_sso',
          target: { type: 'member', id },
          changes: { email: identity.email, role: { from: null, to: role } },
        },
      );
    });
    return id;
  }

  /** Who signs in: their account here, checked against the organization's rules, linked if it was not. */
  async function admit(config: SsoConfigRow, identity: Identity): Promise<string> {
    if (!identity.email.endsWith(`@${config.allowedDomain}`))
      throw refused(
        'domain',
        `Only addresses at ${config.allowedDomain} sign in to this organization with single sign-on`,
      );
    const linked = await repo.findIdentity(identity.issuer, identity.subject);
    const userId = linked ?? (await accounts.findUserByEmail(identity.email))?.id;
    if (!userId) return join(config, identity, undefined);
    const orgs = await accounts.members.organizationsOf(userId);
    const member = orgs.some((org) => org.orgId === config.orgId);
    if (!member && (await repo.wasRemoved(config.orgId, userId)))
      throw refused('removed', 'An owner removed you from this organization; ask them to invite you again');
    // An unlinked account that works elsewhere too: this provider's word must not open those workspaces.
    if (!linked && orgs.some((org) => org.orgId !== config.orgId))
      throw refused(
        'other_workspaces',
        'This email’s account belongs to other workspaces too, so this organization’s provider cannot sign it in: log in with your password',
      );
    if (member) {
      if (!linked) await repo.insertIdentity({ ...identity, userId, orgId: config.orgId, createdAt: iso() });
      return userId;
    }
    return join(config, identity, userId);
  }

  return {
    /** The organization whose allowed domain is the email's: the log-in page's "Sign in with SSO". */
    async discover(email: string) {
      const domain = email.slice(email.lastIndexOf('@') + 1).toLowerCase();
      const config = await repo.findConfigByDomain(domain);
      if (!config) throw appError('not_found', 'No organization signs in addresses at this domain with SSO');
      return { orgId: config.orgId, displayName: config.displayName };
    },

    /** A new sign-in: its state, nonce and PKCE verifier kept server-side, and the provider's URL. */
    async start(orgId: string, loginHint?: string): Promise<{ url: string; state: string }> {
      const config = await configOf(orgId);
      const provider = await providerOf(config);
      const state = client.randomState();
      const nonce = client.randomNonce();
      const codeVerifier = client.randomPKCECodeVerifier();
      const now = deps.now();
      await repo.insertLogin({
        stateHash: sha256Hex(state),
        orgId,
        nonce,
        codeVerifier,
        expiresAt: new Date(now.getTime() + SSO_LOGIN_MINUTES * 60_000).toISOString(),
        createdAt: now.toISOString(),
      });
      const url = client.buildAuthorizationUrl(provider, {
        redirect_uri: deps.redirectUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        ...(loginHint ? { login_hint: loginHint } : {}),
      });
      return { url: url.href, state };
    },

    /**
     * The provider's answer. The state must be the one this browser started with (its cookie) and still
     * unclaimed; the code is exchanged with the PKCE verifier; openid-client checks the ID token's
     * signature, issuer, audience, expiry and nonce. Answers a session token and the organization.
     */
    async finish(query: string, browserState: string | undefined): Promise<{ token: string; orgId: string }> {
      const callback = new URL(deps.redirectUri);
      callback.search = query;
      const state = callback.searchParams.get('state') ?? '';
      if (!state || !browserState || !sameText(state, browserState))
        throw failed('state', 'This sign-in did not start in this browser, or its state does not match');
      const login = await repo.claimLogin(sha256Hex(state), iso());
      if (!login) throw failed('used', 'This sign-in was already used or has expired');
      const config = await configOf(login.orgId);
      const provider = await providerOf(config);
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(provider, callback, {
          pkceCodeVerifier: login.codeVerifier,
          expectedState: state,
          expectedNonce: login.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw providerFailure(error);
      }
      const userId = await admit(config, await identityOf(provider, tokens));
      return { token: await deps.openSession(userId, config.orgId), orgId: config.orgId };
    },
  };
}

export type SsoSignIn = ReturnType<typeof createSsoSignIn>;
