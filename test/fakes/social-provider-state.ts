import { createHmac, randomBytes } from 'node:crypto';
import type { GraphErrorSample } from './social-provider-errors.js';

/**
 * A fake of the Instagram API with Instagram Login on loopback (social-provider.md section 9): the same
 * paths and payloads, one origin standing in for the three real hosts, a clock tests can move, and knobs
 * to refuse a code, rate-limit, expire or revoke tokens, or answer the next call with any error code of
 * the reference. Deliveries are signed as the provider signs them.
 */

export interface Token {
  userId: string;
  kind: 'short' | 'long';
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
}

export interface Comment {
  accountUserId: string;
  fromId: string;
  createdAt: number;
  replied: boolean;
}

export interface SentMessage {
  accountUserId: string;
  recipient: { comment_id?: string; id?: string };
  text: string;
}

export type Endpoint = 'code' | 'exchange' | 'refresh' | 'me' | 'subscribe' | 'messages';
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
export const LONG_LIFE_S = 5_183_944;

/** The fake's state, clock and test controls; the HTTP side is FakeSocialProvider (social-provider.ts). */
export class FakeProviderState {
  readonly appId = 'fake-app-id';
  readonly appSecret = `fake-secret-${randomBytes(6).toString('hex')}`;
  origin = '';
  /** Answers of the code exchange: the documented `data[]` wrapper, numeric ids, array permissions. */
  options = { wrapData: false, numericUserId: true };
  readonly sent: SentMessage[] = [];
  readonly subscribed = new Set<string>();
  readonly calls: string[] = [];
  protected clockOffset = 0;
  protected readonly users = new Map<string, string>();
  protected readonly codes = new Map<
    string,
    { userId: string; redirectUri: string; createdAt: number; used: boolean }
  >();
  protected readonly tokens = new Map<string, Token>();
  protected readonly comments = new Map<string, Comment>();
  protected readonly lastInbound = new Map<string, number>();
  protected readonly failures = new Map<Endpoint, GraphErrorSample>();
  protected refuseCodes = false;
  protected rateLimited = false;

  now(): number {
    return Date.now() + this.clockOffset;
  }
  advance(ms: number): void {
    this.clockOffset += ms;
  }

  // --- test controls -------------------------------------------------------------------------------
  addAccount(userId: string, username: string): void {
    this.users.set(userId, username);
  }
  /** What the consent page does when the person approves: a one-time code for the redirect. */
  approve(userId: string, redirectUri: string): string {
    const code = `code-${randomBytes(8).toString('hex')}`;
    this.codes.set(code, { userId, redirectUri, createdAt: this.now(), used: false });
    return code;
  }
  /** Who approves on the consent page; null means the person cancels (error=access_denied). */
  consentUserId: string | null = null;
  refuseCode(on = true): void {
    this.refuseCodes = on;
  }
  rateLimit(on = true): void {
    this.rateLimited = on;
  }
  failNext(endpoint: Endpoint, error: GraphErrorSample): void {
    this.failures.set(endpoint, error);
  }
  expireTokensOf(userId: string): void {
    for (const token of this.tokens.values()) if (token.userId === userId) token.expiresAt = this.now() - 1;
  }
  revokeTokensOf(userId: string): void {
    for (const token of this.tokens.values()) if (token.userId === userId) token.revoked = true;
  }
  tokensOf(userId: string): string[] {
    return [...this.tokens.entries()].filter(([, t]) => t.userId === userId).map(([value]) => value);
  }

  /** A person comments on a post: the comment exists at the provider and its webhook payload is returned. */
  comment(input: {
    accountUserId: string;
    fromId: string;
    text: string;
    mediaId?: string;
    username?: string;
  }) {
    const commentId = `18${randomBytes(8).readBigUInt64BE(0).toString().padStart(20, '0').slice(0, 15)}`;
    this.comments.set(commentId, {
      accountUserId: input.accountUserId,
      fromId: input.fromId,
      createdAt: this.now(),
      replied: false,
    });
    const payload = {
      object: 'instagram',
      entry: [
        {
          id: input.accountUserId,
          time: Math.floor(this.now() / 1000),
          changes: [
            {
              field: 'comments',
              value: {
                from: { id: input.fromId, username: input.username ?? 'someone' },
                media: { id: input.mediaId ?? '18012345678901234', media_product_type: 'REELS' },
                id: commentId,
                text: input.text,
              },
            },
          ],
        },
      ],
    };
    return { commentId, payload };
  }

  /** A person sends a DM: it opens the 24 h window for them. */
  message(input: { accountUserId: string; fromId: string; text: string }) {
    const mid = `aWdf${randomBytes(12).toString('base64url')}`;
    this.lastInbound.set(`${input.accountUserId}:${input.fromId}`, this.now());
    const payload = {
      object: 'instagram',
      entry: [
        {
          id: input.accountUserId,
          time: this.now(),
          messaging: [
            {
              sender: { id: input.fromId },
              recipient: { id: input.accountUserId },
              timestamp: this.now(),
              message: { mid, text: input.text },
            },
          ],
        },
      ],
    };
    return { mid, payload };
  }

  sign(body: string | Buffer): string {
    return `sha256=${createHmac('sha256', this.appSecret).update(body).digest('hex')}`;
  }

  /** POSTs a signed delivery to our callback, as the provider does; answers our status code. */
  async deliver(callbackUrl: string, payload: unknown): Promise<number> {
    const body = JSON.stringify(payload);
    const response = await fetch(callbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': this.sign(body) },
      body,
    });
    await response.arrayBuffer();
    return response.status;
  }

  /** The verification handshake: answers whether our callback echoed the challenge. */
  async handshake(callbackUrl: string, verifyToken: string): Promise<boolean> {
    const challenge = String(1_000_000_000 + Math.floor(Math.random() * 1e9));
    const url = `${callbackUrl}?hub.mode=subscribe&hub.challenge=${challenge}&hub.verify_token=${encodeURIComponent(verifyToken)}`;
    const response = await fetch(url);
    return response.status === 200 && (await response.text()) === challenge;
  }
}
