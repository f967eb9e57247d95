import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';

/**
 * A real OpenID provider (oidc-provider) on loopback for the SSO tests: one static confidential client
 * whose redirect URI is linkhop's callback, test people with their email claims, and the library's own
 * development log-in page (any password; the login field is the account id), consent pre-granted.
 */
export interface TestPerson {
  email: string;
  emailVerified?: boolean;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Add or change a person the provider knows, by account id (their `sub`). */
  people: Map<string, TestPerson>;
  /** Rewrites every ID token the token endpoint issues, re-signed with the provider's own key. */
  tamperIdToken: ((claims: JWTPayload) => JWTPayload) | null;
  /**
   * Logs `accountId` in at the provider as a browser would: follows the authorization URL, submits the
   * development log-in form, and answers the redirect back to linkhop's callback (not followed).
   */
  authorize(authorizationUrl: string, accountId: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(options: { redirectUri: string }): Promise<TestProvider> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  void publicKey;
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientId = 'linkhop-test';
  const clientSecret = 'a-client-secret-for-tests-0123456789';
  const people = new Map<string, TestPerson>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    ttl: {
      Session: 600,
      Interaction: 600,
      Grant: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx: KoaContextWithOIDC, sub: string) => {
      const person = people.get(sub);
      if (!person) return undefined;
      return {
        accountId: sub,
        claims: async () => ({ sub, email: person.email, email_verified: person.emailVerified ?? true }),
      };
    },
    // Consent is not what these tests are about: every client is granted what it asks.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      if (!accountId || !clientId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
  });
  const state: { tamper: TestProvider['tamperIdToken'] } = { tamper: null };
  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && state.tamper && body?.id_token) {
      const claims = state.tamper(decodeJwt(body.id_token));
      body.id_token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
        .sign(privateKey);
    }
  });
  server.on('request', provider.callback());

  async function authorize(authorizationUrl: string, accountId: string): Promise<URL> {
    const jar = new Map<string, string>();
    const send = async (url: string, init: RequestInit = {}) => {
      const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
      const response = await fetch(url, {
        ...init,
        redirect: 'manual',
        headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
      });
      for (const line of response.headers.getSetCookie()) {
        const [pair = ''] = line.split(';');
        const index = pair.indexOf('=');
        jar.set(pair.slice(0, index), pair.slice(index + 1));
      }
      return response;
    };
    let response = await send(authorizationUrl);
    for (let hop = 0; hop < 10; hop++) {
      const location = response.headers.get('location');
      if (!location)
        throw new Error(`The provider stopped with ${response.status}: ${await response.text()}`);
      const next = new URL(location, issuer);
      if (!next.href.startsWith(issuer)) return next;
      if (next.pathname.startsWith('/interaction/')) {
        await send(next.href);
        response = await send(next.href, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ prompt: 'login', login: accountId, password: 'any' }).toString(),
        });
      } else {
        response = await send(next.href);
      }
    }
    throw new Error('The provider redirected too many times');
  }

  return {
    issuer,
    clientId,
    clientSecret,
    people,
    get tamperIdToken() {
      return state.tamper;
    },
    set tamperIdToken(value) {
      state.tamper = value;
    },
    authorize,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
