import * as client from 'openid-client';
import type { GuardedFetcher } from '../net/guarded-fetch.js';

/** The provider answers we read: discovery, JWKS, the token response. Anything bigger is not an OP talking. */
const MAX_RESPONSE_BYTES = 512 * 1024;
const TIMEOUT_MS = 10_000;
/** How long a discovered configuration (and the keys it fetched) is reused before asking the provider again. */
const CACHE_MS = 10 * 60_000;
/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * openid-client's fetch, sent through the SSRF guard: discovery, the JWKS and the token exchange reach an
 * issuer an owner typed, so they obey the same address rule as webhooks and imports. No redirects are
 * followed (openid-client asks for `manual`).
 */
export function guardedCustomFetch(fetcher: GuardedFetcher): client.CustomFetch {
  return async (url, options) => {
    const method = options.method.toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new Error(`SSO never sends ${method}`);
    const body = options.body === undefined || options.body === null ? undefined : String(options.body);
    const answer = await fetcher.request(url, {
      method,
      headers: options.headers,
      ...(body === undefined ? {} : { body }),
      maxBytes: MAX_RESPONSE_BYTES,
      timeoutMs: TIMEOUT_MS,
      maxRedirects: 0,
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(answer.headers)) headers.set(name, value);
    return new Response(NULL_BODY.has(answer.status) ? null : new Uint8Array(answer.body), {
      status: answer.status,
      headers,
    });
  };
}

export interface ProviderClient {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface OidcClientsDeps {
  fetcher: GuardedFetcher;
  /** SSO_ALLOW_PRIVATE_ISSUERS: plain http issuers (tests, LANs); the fetcher then allows private addresses. */
  allowInsecure: boolean;
  clock: () => number;
}

/**
 * openid-client configurations, one per (issuer, client, secret), discovered once and kept a while so a
 * sign-in costs the provider one token request, not a discovery and a key fetch each time.
 */
export function createOidcClients(deps: OidcClientsDeps) {
  const cache = new Map<string, { at: number; config: Promise<client.Configuration> }>();
  const customFetch = guardedCustomFetch(deps.fetcher);

  function discover(provider: ProviderClient): Promise<client.Configuration> {
    return client.discovery(
      new URL(provider.issuer),
      provider.clientId,
      undefined,
      client.ClientSecretBasic(provider.clientSecret),
      {
        [client.customFetch]: customFetch,
        ...(deps.allowInsecure ? { execute: [client.allowInsecureRequests] } : {}),
      },
    );
  }

  return {
    /** The provider's configuration; a failed discovery is not kept, so the next sign-in tries again. */
    configuration(provider: ProviderClient): Promise<client.Configuration> {
      const key = JSON.stringify([provider.issuer, provider.clientId, provider.clientSecret]);
      const hit = cache.get(key);
      if (hit && deps.clock() - hit.at < CACHE_MS) return hit.config;
      const config = discover(provider);
      cache.set(key, { at: deps.clock(), config });
      config.catch(() => cache.delete(key));
      return config;
    },
    /** Discovery alone, uncached: saving a configuration checks the issuer answers as an OpenID provider. */
    check: discover,
  };
}

export type OidcClients = ReturnType<typeof createOidcClients>;
