/**
 * Client of the Instagram API with Instagram Login (social-provider.md 2, 5). The hosts are fixed
 * configuration (SOCIAL_AUTHORIZE_BASE: consent page; SOCIAL_OAUTH_BASE: the code-exchange host
 * api.instagram.com; SOCIAL_API_BASE: graph.instagram.com), never user input, so plain fetch is fine.
 * Provider ids overflow JavaScript numbers: they are read from the raw response text as strings.
 */

export const GRAPH_VERSION = 'v23.0';
export const SCOPES = [
  'instagram_business_basic',
  'instagram_business_manage_comments',
  'instagram_business_manage_messages',
];
const TIMEOUT_MS = 10_000;

export class ProviderError extends Error {
  constructor(
    /** HTTP status, 0 when the provider was not reached. */
    readonly status: number,
    readonly code: number | null,
    readonly subcode: number | null,
  ) {
    super(`The provider refused (HTTP ${status}${code === null ? '' : `, code ${code}`})`);
    this.name = 'ProviderError';
  }
}

export interface ProviderConfig {
  appId: string;
  appSecret: string;
  authorizeBase: string;
  oauthBase: string;
  apiBase: string;
}

export interface TokenGrant {
  accessToken: string;
  expiresIn: number;
}

export interface Profile {
  userId: string;
  username: string;
}

const trimBase = (base: string) => base.replace(/\/+$/, '');

/** A string id from the raw JSON text, whether the provider wrote it as a string or a (too big) number. */
export function rawId(text: string, field: string): string | null {
  const match = new RegExp(`"${field}"\\s*:\\s*"?(\\d+)"?`).exec(text);
  return match?.[1] ?? null;
}

function num(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

async function call(
  url: string,
  init: RequestInit,
): Promise<{ text: string; json: Record<string, unknown> }> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await response.text();
  } catch {
    throw new ProviderError(0, null, null);
  }
  let json: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object') json = parsed as Record<string, unknown>;
  } catch {
    // A non-JSON answer is judged by its status below.
  }
  const graph = json.error as Record<string, unknown> | undefined;
  if (graph && typeof graph === 'object') {
    throw new ProviderError(response.status, num(graph.code), num(graph.error_subcode));
  }
  // The code-exchange host answers errors flat: {error_type, code, error_message}.
  if (typeof json.error_type === 'string') throw new ProviderError(response.status, num(json.code), null);
  if (!response.ok) throw new ProviderError(response.status, null, null);
  return { text, json };
}

export function createProviderClient(config: ProviderConfig) {
  const oauth = trimBase(config.oauthBase);
  const api = trimBase(config.apiBase);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const grantOf = (json: Record<string, unknown>): TokenGrant => {
    if (typeof json.access_token !== 'string') throw new ProviderError(200, null, null);
    return { accessToken: json.access_token, expiresIn: num(json.expires_in) ?? 0 };
  };

  return {
    authorizeUrl(redirectUri: string, state: string): string {
      const url = new URL('/oauth/authorize', trimBase(config.authorizeBase));
      url.searchParams.set('client_id', config.appId);
      url.searchParams.set('redirect_uri', redirectUri);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', SCOPES.join(','));
      url.searchParams.set('state', state);
      return url.toString();
    },

    /** Code to short-lived token; accepts the documented `data[]` wrapper and the flat shape seen live. */
    async exchangeCode(
      code: string,
      redirectUri: string,
    ): Promise<{ accessToken: string; userId: string | null }> {
      const body = new URLSearchParams({
        client_id: config.appId,
        client_secret: config.appSecret,
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code: code.replace(/#_$/, ''),
      });
      const { text, json } = await call(`${oauth}/oauth/access_token`, { method: 'POST', body });
      const first = Array.isArray(json.data) ? (json.data[0] as Record<string, unknown> | undefined) : json;
      if (!first || typeof first.access_token !== 'string') throw new ProviderError(200, null, null);
      return { accessToken: first.access_token, userId: rawId(text, 'user_id') };
    },

    async longLived(shortToken: string): Promise<TokenGrant> {
      const url = new URL(`${api}/access_token`);
      url.searchParams.set('grant_type', 'ig_exchange_token');
      url.searchParams.set('client_secret', config.appSecret);
      url.searchParams.set('access_token', shortToken);
      return grantOf((await call(url.toString(), { method: 'GET' })).json);
    },

    async refresh(longToken: string): Promise<TokenGrant> {
      const url = new URL(`${api}/refresh_access_token`);
      url.searchParams.set('grant_type', 'ig_refresh_token');
      url.searchParams.set('access_token', longToken);
      return grantOf((await call(url.toString(), { method: 'GET' })).json);
    },

    /** `user_id` of /me is the professional account id that webhooks carry as `entry[].id`. */
    async profile(token: string): Promise<Profile> {
      const { text, json } = await call(`${api}/${GRAPH_VERSION}/me?fields=user_id,username`, {
        method: 'GET',
        headers: bearer(token),
      });
      const flat = Array.isArray(json.data) ? (json.data[0] as Record<string, unknown>) : json;
      const userId = rawId(text, 'user_id');
      if (!userId || typeof flat?.username !== 'string') throw new ProviderError(200, null, null);
      return { userId, username: flat.username };
    },

    /** Without this per-account call nothing is delivered for the account. */
    async subscribe(token: string): Promise<void> {
      await call(`${api}/${GRAPH_VERSION}/me/subscribed_apps?subscribed_fields=comments,messages`, {
        method: 'POST',
        headers: bearer(token),
      });
    },

    /** Private reply to a comment (one per comment) or, with `recipientId`, a DM inside the 24 h window. */
    async sendMessage(
      token: string,
      accountId: string,
      to: { commentId: string } | { recipientId: string },
      text: string,
    ): Promise<{ recipientId: string | null; messageId: string | null }> {
      const recipient = 'commentId' in to ? { comment_id: to.commentId } : { id: to.recipientId };
      const { text: raw, json } = await call(
        `${api}/${GRAPH_VERSION}/${encodeURIComponent(accountId)}/messages`,
        {
          method: 'POST',
          headers: { ...bearer(token), 'content-type': 'application/json' },
          body: JSON.stringify({ recipient, message: { text } }),
        },
      );
      return {
        recipientId: rawId(raw, 'recipient_id'),
        messageId: typeof json.message_id === 'string' ? json.message_id : null,
      };
    },
  };
}

export type ProviderClient = ReturnType<typeof createProviderClient>;
