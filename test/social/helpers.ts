import { expect } from 'vitest';
import { stateFor } from '../../src/social/deps.js';
import type { SocialHarness } from './harness.js';
import { redirectUriOf } from './harness.js';

/** Steps shared by the social tests: the person's consent, a link to DM, a rule. */

let nextUser = 17841400000000000n;
/** A fresh provider id above Number.MAX_SAFE_INTEGER, as real ones are. */
export function providerId(): string {
  nextUser += 1234567n;
  return nextUser.toString();
}

export async function stateOf(h: SocialHarness, orgId: string): Promise<string> {
  const meta = await h.as(orgId, { method: 'GET', url: '/api/social/meta' });
  const authUrl = meta.json().authUrl as string | null;
  // Without an authUrl (flag off, lower plan) the state is computed as the server would.
  return authUrl ? (new URL(authUrl).searchParams.get('state') ?? '') : stateFor(h.deps.stateSecret, orgId);
}

/** The person approves on the (fake) consent page; the browser comes back with `?code=..&state=..#_`. */
async function consent(h: SocialHarness, orgId: string, userId: string) {
  const authUrl = (await h.as(orgId, { method: 'GET', url: '/api/social/meta' })).json().authUrl as
    | string
    | null;
  if (!authUrl)
    return { code: h.fake.approve(userId, redirectUriOf(h.deps)), state: await stateOf(h, orgId) };
  h.fake.consentUserId = userId;
  const response = await fetch(authUrl, { redirect: 'manual' });
  h.fake.consentUserId = null;
  const back = new URL(response.headers.get('location') ?? '');
  expect(`${back.origin}${back.pathname}`).toBe(redirectUriOf(h.deps));
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

export async function connect(h: SocialHarness, orgId: string, userId = providerId(), username = 'creator') {
  h.fake.addAccount(userId, username);
  const payload = await consent(h, orgId, userId);
  const response = await h.as(orgId, { method: 'POST', url: '/api/social/connect', payload });
  return { response, userId };
}

export async function createLink(
  h: SocialHarness,
  apiKey: string,
  url = 'https://open.spotify.com/track/abc',
) {
  const response = await h.hosted.v1(apiKey, { method: 'POST', url: '/v1/links', payload: { url } });
  if (response.statusCode !== 201) throw new Error(`link not created: ${response.body}`);
  return response.json() as { id: string; slug: string; shortUrl: string };
}

export async function createRule(h: SocialHarness, orgId: string, body: Record<string, unknown>) {
  return h.as(orgId, { method: 'POST', url: '/api/social/automations', payload: body });
}

export const commentTrigger = (keywords: string[] = ['link'], mode = 'any') => ({
  type: 'comment',
  match: { mode, keywords },
  mediaId: null,
});
