import { expect } from 'vitest';
import { SSO_STATE_COOKIE } from '../../src/sso/flow-routes.js';
import { asCookie } from '../accounts/teams.js';
import { BASE_URL, type HostedHarness, startHosted } from '../helpers/hosted.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import type { StoreKind } from '../helpers/stores.js';

export const DOMAIN = 'acme.test';
export const REDIRECT_URI = `${BASE_URL}/api/sso/callback`;

/** linkhop and a real OpenID provider on loopback, an organization whose owner configured SSO with it. */
export interface SsoWorld {
  h: HostedHarness;
  provider: TestProvider;
  orgId: string;
  ownerCookie: string;
  ownerEmail: string;
  close(): Promise<void>;
}

export async function startSsoWorld(
  kind: StoreKind,
  settings: Record<string, unknown> = {},
): Promise<SsoWorld> {
  const provider = await startTestProvider({ redirectUri: REDIRECT_URI });
  const h = await startHosted(kind, { SSO_ALLOW_PRIVATE_ISSUERS: '1' });
  const ownerEmail = 'owner@example.com';
  const { cookie, orgId } = await h.session({ email: ownerEmail, orgName: 'Acme' });
  const put = await asCookie(h, cookie)('PUT', '/api/org/sso', {
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    allowedDomain: DOMAIN,
    displayName: 'Acme ID',
    ...settings,
  });
  expect(put.statusCode, put.body).toBe(200);
  return {
    h,
    provider,
    orgId,
    ownerCookie: cookie,
    ownerEmail,
    async close() {
      await h.close();
      await provider.close();
    },
  };
}

/** A sign-in started as the log-in page starts it: the provider's URL and the state cookie it set. */
export async function startSignIn(world: SsoWorld): Promise<{ location: string; stateCookie: string }> {
  const started = await world.h.app.inject({ method: 'GET', url: `/api/sso/start?org=${world.orgId}` });
  expect(started.statusCode, started.body).toBe(303);
  const setCookie = [started.headers['set-cookie'] ?? []].flat().join('\n');
  const value = new RegExp(`${SSO_STATE_COOKIE}=([^;]+)`).exec(setCookie)?.[1];
  expect(value).toBeTruthy();
  return { location: String(started.headers.location), stateCookie: `${SSO_STATE_COOKIE}=${value}` };
}

/** linkhop's callback as the browser reaches it, with the state cookie it holds. */
export function callback(world: SsoWorld, url: URL, stateCookie: string, accept = 'application/json') {
  expect(url.href.startsWith(REDIRECT_URI), url.href).toBe(true);
  return world.h.app.inject({
    method: 'GET',
    url: `/api/sso/callback${url.search}`,
    headers: { cookie: stateCookie, accept },
  });
}

/** The whole round trip for `accountId`: start, log in at the provider, come back. */
export async function signIn(world: SsoWorld, accountId: string, accept?: string) {
  const { location, stateCookie } = await startSignIn(world);
  const back = await world.provider.authorize(location, accountId);
  return callback(world, back, stateCookie, accept);
}

/** The session cookie a successful callback set. */
export function sessionCookieOf(response: { headers: Record<string, unknown> }): string {
  const setCookie = [response.headers['set-cookie'] ?? []].flat().join('\n');
  const token = /lh_session=([^;]+)/.exec(setCookie)?.[1];
  expect(token).toBeTruthy();
  return `lh_session=${token}`;
}
