import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type GraphErrorSample, PROVIDER_ERRORS } from './social-provider-errors.js';
import {
  DAY,
  type Endpoint,
  FakeProviderState,
  HOUR,
  LONG_LIFE_S,
  type Token,
} from './social-provider-state.js';

export { type GraphErrorSample, PROVIDER_ERRORS };

/**
 * A fake of the Instagram API with Instagram Login on loopback (social-provider.md section 9): the same
 * paths and payloads, one origin standing in for the three real hosts, a clock tests can move, and knobs
 * to refuse a code, rate-limit, expire or revoke tokens, or answer the next call with any error code of
 * the reference (see FakeProviderState). Deliveries are signed as the provider signs them.
 */
export class FakeSocialProvider extends FakeProviderState {
  private server: Server | undefined;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => this.json(res, 500, { error: { message: 'fake crashed', code: 1 } }));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  // --- the provider's endpoints --------------------------------------------------------------------
  private json(res: ServerResponse, status: number, body: unknown, raw?: string): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(raw ?? JSON.stringify(body));
  }
  private graphError(res: ServerResponse, error: GraphErrorSample): void {
    const { status, code, subcode, message } = error;
    this.json(res, status, {
      error: { message, type: 'OAuthException', code, error_subcode: subcode ?? null, fbtrace_id: 'FAKE' },
    });
  }
  private issue(userId: string, kind: Token['kind']): string {
    const token = `IG${randomBytes(24).toString('base64url')}`;
    const life = kind === 'short' ? HOUR : LONG_LIFE_S * 1000;
    this.tokens.set(token, {
      userId,
      kind,
      issuedAt: this.now(),
      expiresAt: this.now() + life,
      revoked: false,
    });
    return token;
  }
  /** The token from the Authorization header, the query, or a form or JSON body. */
  private tokenCheck(res: ServerResponse, value: string | undefined, kind?: Token['kind']): Token | null {
    const token = value ? this.tokens.get(value) : undefined;
    if (!token || (kind && token.kind !== kind)) this.graphError(res, PROVIDER_ERRORS.token_invalid);
    else if (token.revoked) this.graphError(res, PROVIDER_ERRORS.token_revoked);
    else if (token.expiresAt <= this.now()) this.graphError(res, PROVIDER_ERRORS.token_expired);
    else return token;
    return null;
  }
  private oneShot(res: ServerResponse, endpoint: Endpoint): boolean {
    const failure = this.failures.get(endpoint);
    if (failure) {
      this.failures.delete(endpoint);
      this.graphError(res, failure);
      return true;
    }
    if (this.rateLimited && endpoint === 'messages') {
      this.graphError(res, PROVIDER_ERRORS.endpoint_rate);
      return true;
    }
    return false;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const form = new URLSearchParams(req.headers['content-type']?.includes('json') ? '' : rawBody);
    const jsonBody = req.headers['content-type']?.includes('json') && rawBody ? JSON.parse(rawBody) : {};
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const accessToken =
      bearer ?? url.searchParams.get('access_token') ?? form.get('access_token') ?? jsonBody.access_token;
    // Versioned and unversioned paths alike.
    const path = url.pathname.replace(/^\/v\d+\.\d+(?=\/)/, '');
    this.calls.push(`${req.method} ${path}`);

    if (req.method === 'GET' && path === '/oauth/authorize') {
      const redirectUri = url.searchParams.get('redirect_uri') ?? '';
      const scope = url.searchParams.get('scope') ?? '';
      if (url.searchParams.get('client_id') !== this.appId || !scope.includes('instagram_business_basic'))
        return this.json(res, 400, {
          error_type: 'OAuthException',
          code: 400,
          error_message: 'Invalid platform app',
        });
      const redirect = new URL(redirectUri);
      if (this.consentUserId) {
        redirect.searchParams.set('code', this.approve(this.consentUserId, redirectUri));
      } else {
        redirect.searchParams.set('error', 'access_denied');
        redirect.searchParams.set('error_reason', 'user_denied');
        redirect.searchParams.set('error_description', 'The user denied your request');
      }
      redirect.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: `${redirect}#_` }).end();
      return;
    }
    if (req.method === 'POST' && path === '/oauth/access_token') {
      const entry = this.codes.get(form.get('code') ?? '');
      const refuse = (message: string) =>
        this.json(res, 400, { error_type: 'OAuthException', code: 400, error_message: message });
      if (this.failures.has('code')) return void this.oneShot(res, 'code');
      if (form.get('client_id') !== this.appId || form.get('client_secret') !== this.appSecret)
        return refuse('Invalid platform app');
      if (this.refuseCodes || !entry || entry.used || entry.createdAt + HOUR < this.now())
        return refuse('Matching code was not found or was already used');
      if (form.get('redirect_uri') !== entry.redirectUri) return refuse('Invalid redirect_uri');
      entry.used = true;
      const token = this.issue(entry.userId, 'short');
      const idText = this.options.numericUserId ? entry.userId : JSON.stringify(entry.userId);
      const inner = `{"access_token":${JSON.stringify(token)},"user_id":${idText},"permissions":["instagram_business_basic","instagram_business_manage_comments","instagram_business_manage_messages"]}`;
      return this.json(res, 200, null, this.options.wrapData ? `{"data":[${inner}]}` : inner);
    }
    if (req.method === 'GET' && path === '/access_token') {
      if (this.oneShot(res, 'exchange')) return;
      if (
        url.searchParams.get('grant_type') !== 'ig_exchange_token' ||
        url.searchParams.get('client_secret') !== this.appSecret
      )
        return this.graphError(res, PROVIDER_ERRORS.invalid_request);
      const short = this.tokenCheck(res, accessToken, 'short');
      if (!short) return;
      return this.json(res, 200, {
        access_token: this.issue(short.userId, 'long'),
        token_type: 'bearer',
        expires_in: LONG_LIFE_S,
      });
    }
    if (req.method === 'GET' && path === '/refresh_access_token') {
      if (this.oneShot(res, 'refresh')) return;
      const long = this.tokenCheck(res, accessToken, 'long');
      if (!long) return;
      if (long.issuedAt + DAY > this.now())
        return this.graphError(res, { status: 400, code: 100, message: 'token too new to refresh' });
      return this.json(res, 200, {
        access_token: this.issue(long.userId, 'long'),
        token_type: 'bearer',
        expires_in: LONG_LIFE_S,
      });
    }
    if (req.method === 'GET' && path === '/me') {
      if (this.oneShot(res, 'me')) return;
      const token = this.tokenCheck(res, accessToken);
      if (!token) return;
      return this.json(res, 200, {
        user_id: token.userId,
        username: this.users.get(token.userId) ?? 'unknown',
        id: `app-${token.userId}`,
      });
    }
    const edge = /^\/([^/]+)\/(subscribed_apps|messages)$/.exec(path);
    if (edge) {
      const token = this.tokenCheck(res, accessToken);
      if (!token) return;
      const node = edge[1] === 'me' ? token.userId : edge[1];
      if (node !== token.userId) return this.graphError(res, PROVIDER_ERRORS.object_not_found);
      if (edge[2] === 'subscribed_apps') {
        if (this.oneShot(res, 'subscribe')) return;
        if (req.method === 'DELETE') this.subscribed.delete(node);
        else if (req.method === 'POST') this.subscribed.add(node);
        return this.json(
          res,
          200,
          req.method === 'GET'
            ? { data: [{ subscribed_fields: ['comments', 'messages'] }] }
            : { success: true },
        );
      }
      if (this.oneShot(res, 'messages')) return;
      const recipient = (jsonBody.recipient ?? {}) as { comment_id?: string; id?: string };
      const text = String(jsonBody.message?.text ?? '');
      if (!text || Buffer.byteLength(text, 'utf8') > 1000)
        return this.graphError(res, PROVIDER_ERRORS.invalid_request);
      let recipientId: string;
      if (recipient.comment_id) {
        const comment = this.comments.get(recipient.comment_id);
        if (!comment || comment.accountUserId !== node)
          return this.graphError(res, PROVIDER_ERRORS.object_not_found);
        if (comment.replied || comment.createdAt + 7 * DAY < this.now())
          return this.graphError(res, PROVIDER_ERRORS.private_reply_unavailable);
        comment.replied = true;
        recipientId = comment.fromId;
      } else {
        const last = this.lastInbound.get(`${node}:${recipient.id}`);
        if (last === undefined || last + DAY < this.now())
          return this.graphError(res, PROVIDER_ERRORS.outside_24h_window);
        recipientId = String(recipient.id);
      }
      this.sent.push({ accountUserId: node, recipient, text });
      return this.json(
        res,
        200,
        null,
        `{"recipient_id":"${recipientId}","message_id":"mid.${randomBytes(6).toString('hex')}"}`,
      );
    }
    this.graphError(res, { status: 404, code: 100, subcode: 33, message: 'Unsupported get request.' });
  }
}
