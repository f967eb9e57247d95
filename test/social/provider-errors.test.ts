import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyProviderError } from '../../src/social/provider-errors.js';
import { PROVIDER_ERRORS } from '../fakes/social-provider.js';
import { sqliteKind } from '../helpers/stores.js';
import { type SocialHarness, startSocial } from './harness.js';
import { commentTrigger, connect, createLink, createRule } from './helpers.js';

const EXPECTED: Record<keyof typeof PROVIDER_ERRORS, string> = {
  token_expired: 'token_expired',
  token_revoked: 'token_revoked',
  app_removed: 'app_removed',
  token_invalid: 'token_invalid',
  session_key_invalid: 'token_invalid',
  outside_24h_window: 'outside_24h_window',
  permission_missing: 'permission_missing',
  permission_2xx: 'permission_missing',
  capability_missing: 'capability_missing',
  recipient_unavailable: 'recipient_unavailable',
  recipient_refuses: 'recipient_unavailable',
  recipient_not_found: 'recipient_not_found',
  private_reply_unavailable: 'private_reply_unavailable',
  object_not_found: 'object_not_found',
  invalid_request: 'invalid_request',
  app_rate: 'rate_limited',
  user_rate: 'rate_limited',
  page_rate: 'rate_limited',
  endpoint_rate: 'rate_limited',
  account_rate: 'rate_limited',
  app_limit: 'rate_limited',
  blocked: 'blocked_by_provider',
  unknown: 'provider_error',
  unavailable: 'provider_unavailable',
};

describe('provider errors become firing rows with a token and a plain reason', () => {
  let h: SocialHarness;
  beforeAll(async () => {
    h = await startSocial(sqliteKind);
  });
  afterAll(async () => h.close());

  it('every error of the reference has a token and a reason; unknown codes keep a bare token', () => {
    for (const [name, sample] of Object.entries(PROVIDER_ERRORS)) {
      const classified = classifyProviderError(sample.code, 'subcode' in sample ? sample.subcode : null);
      expect(classified.error, name).toBe(EXPECTED[name as keyof typeof PROVIDER_ERRORS]);
      expect(classified.reason, name).toEqual(expect.any(String));
    }
    expect(classifyProviderError(99999, null)).toMatchObject({ error: 'provider_99999', reason: null });
  });

  it.each(Object.entries(PROVIDER_ERRORS))('%s from the fake at send time', async (name, sample) => {
    const { orgId, apiKey } = await h.org('legend');
    const { response, userId } = await connect(h, orgId);
    const link = await createLink(h, apiKey);
    const rule = (
      await createRule(h, orgId, {
        accountId: response.json().id,
        linkId: link.id,
        dmText: 'Hi',
        trigger: commentTrigger([]),
      })
    ).json();
    h.fake.failNext('messages', sample);
    await h.fake.deliver(
      h.webhookUrl,
      h.fake.comment({ accountUserId: userId, fromId: '5', text: 'x' }).payload,
    );
    await h.intake.drain();
    const [event] = (
      await h.as(orgId, { method: 'GET', url: `/api/social/automations/${rule.id}/events` })
    ).json().events;
    expect(event).toMatchObject({
      status: 'failed',
      error: EXPECTED[name as keyof typeof PROVIDER_ERRORS],
      reason: expect.any(String),
    });
    const [account] = (await h.as(orgId, { method: 'GET', url: '/api/social' })).json().accounts;
    expect(account.status).toBe(sample.code === 190 || sample.code === 102 ? 'needs_reconnect' : 'active');
  });

  it('a DM outside the 24 h window is outside_24h_window with its plain-language reason', async () => {
    const { orgId, apiKey } = await h.org('legend');
    const { response, userId } = await connect(h, orgId);
    const link = await createLink(h, apiKey);
    const rule = (
      await createRule(h, orgId, {
        accountId: response.json().id,
        linkId: link.id,
        dmText: 'Hi',
        trigger: { type: 'message', match: { mode: 'any', keywords: [] }, mediaId: null },
      })
    ).json();
    const { payload } = h.fake.message({ accountUserId: userId, fromId: '44', text: 'hey' });
    h.fake.advance(25 * 3_600_000); // the delivery reaches us a day late (provider retries)
    await h.fake.deliver(h.webhookUrl, payload);
    await h.intake.drain();
    h.fake.advance(-25 * 3_600_000);
    const [event] = (
      await h.as(orgId, { method: 'GET', url: `/api/social/automations/${rule.id}/events` })
    ).json().events;
    expect(event).toMatchObject({
      status: 'failed',
      error: 'outside_24h_window',
      reason: 'Instagram only allows this message within 24 hours of the person’s last message.',
    });
  });
});
